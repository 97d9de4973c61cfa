import Foundation
import Testing
@testable import SyncSim

/// The library fuzz driver on user strategies: contracts come from the strategy values (no
/// false green), reports are independent of the number of jobs, and stops keep a prefix.
@Suite struct FuzzDriverTests {
    /// Instant resurrects deleted entities (seed 1): claiming `noResurrection` is a lie.
    static let liar = AnyStrategy(Relabelled(InstantStrategy(), name: "notesSync", contract: [.convergence, .noResurrection]))
    /// Reference claims every invariant and keeps them all.
    static let honest = AnyStrategy(Relabelled(ReferenceStrategy(), name: "userReference", contract: Set(InvariantID.allCases)))

    static func configuration(_ seeds: Range<UInt64>, jobs: Int = 1, shrink: Bool = false) -> FuzzConfiguration {
        FuzzConfiguration(seeds: SeedRange(seeds), jobs: jobs, shrink: shrink, shrinkMaxRuns: 150)
    }

    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-driver-\(getpid())-\(name)").path
    }

    /// The report as JSON without its wall-clock facts.
    static func canonical(_ r: FuzzReport) throws -> String {
        var r = r
        r.timing = .init(startedAt: "", wallSeconds: 0, runsPerSecond: 0, shrinkSeconds: 0)
        return try ReportWriter.json(r)
    }

    @Test func userStrategyBreakingItsClaimIsAContractViolationNotAFalseGreen() throws {
        let dir = Self.tmp("liar")
        var config = Self.configuration(0..<4, shrink: true)
        config.reportDirectory = dir
        let result = try FuzzDriver(strategies: [Self.liar], configuration: config).run()
        let r = result.report
        #expect(!r.allContractsMet)
        let s = try #require(r.strategies.first)
        #expect(s.name == "notesSync" && s.contract == ["convergence", "noResurrection"])
        #expect(!s.metContract && s.contractViolations.contains("noResurrection"))
        #expect(r.failures.contains { $0.strategy == "notesSync" && $0.invariant == "noResurrection" && $0.claimed })
        // Every rendering says so: junit.xml has the failure (CI goes red), markdown too.
        let junit = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        #expect(junit.contains("<failure") && junit.contains("type=\"contractViolation\""))
        #expect(junit.contains("name=\"noResurrection\""))
        let md = try String(contentsOfFile: "\(dir)/report.md", encoding: .utf8)
        #expect(md.contains("**Contract violated:** notesSync"))
        #expect(!md.contains("Every strategy met its contract"))
        // The shrunk failure was written, and its replay command names it under the prefix.
        let f = try #require(r.failures.first { $0.invariant == "noResurrection" })
        let file = try #require(f.scenario)
        #expect(FileManager.default.fileExists(atPath: "\(dir)/\(file)"))
        #expect(f.replay == "swift run syncsim replay \(dir)/\(file)")
        #expect(result.scenarios.contains { $0.file == file })
    }

    /// A user strategy named like a built-in is judged by its own contract, not the built-in's
    /// (instant does not claim noResurrection; this one does).
    @Test func contractComesFromTheValueEvenUnderABuiltInName() throws {
        let impostor = AnyStrategy(Relabelled(InstantStrategy(), name: "instant", contract: [.noResurrection]))
        let r = try FuzzDriver(strategies: [impostor], configuration: Self.configuration(0..<4)).run().report
        #expect(r.strategies[0].contract == ["noResurrection"])
        #expect(!r.allContractsMet)
        #expect(JUnitReport.render(r).contains("<failure"))
    }

    @Test func userStrategyMeetingItsContractIsGreen() throws {
        let dir = Self.tmp("honest")
        var config = Self.configuration(0..<4)
        config.reportDirectory = dir
        let r = try FuzzDriver(strategies: [Self.honest], configuration: config).run().report
        #expect(r.allContractsMet)
        #expect(r.strategies[0].runs == 4 && r.complete)
        #expect(r.strategies[0].contract.count == InvariantID.allCases.count)
        let junit = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        #expect(!junit.contains("<failure"))
        #expect(junit.contains("failures=\"0\""))
        // Atomic writes leave no temporary files behind.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test func sameReportWithOneOrTwoJobs() throws {
        let strategies = [Self.liar, AnyStrategy(FullEntityStrategy()), Self.honest]
        let one = try FuzzDriver(strategies: strategies, configuration: Self.configuration(0..<6, jobs: 1, shrink: true)).run()
        let two = try FuzzDriver(strategies: strategies, configuration: Self.configuration(0..<6, jobs: 2, shrink: true)).run()
        #expect(one.report.runs.count == 18)
        #expect(!one.report.failures.isEmpty)
        #expect(try Self.canonical(one.report) == Self.canonical(two.report))
        #expect(one.scenarios.map(\.file) == two.scenarios.map(\.file))
    }

    /// `stopOnFirstContractViolation` keeps the runs up to the first violating one in plan
    /// order, whatever the jobs: the liar breaks its contract at seed 1.
    @Test func stopOnFirstKeepsTheSamePrefixWithAnyJobs() throws {
        var reports: [FuzzReport] = []
        for jobs in [1, 2] {
            var config = Self.configuration(0..<40, jobs: jobs)
            config.stopOnFirstContractViolation = true
            reports.append(try FuzzDriver(strategies: [Self.honest, Self.liar], configuration: config).run().report)
        }
        let r = reports[0]
        #expect(!r.complete && !r.allContractsMet)
        let last = try #require(r.runs.filter { $0.strategy == "notesSync" }.map(\.seed).max())
        #expect(r.runs.filter { $0.strategy == "notesSync" && $0.violated.contains("noResurrection") }.map(\.seed) == [last])
        #expect(try Self.canonical(reports[0]) == Self.canonical(reports[1]))
    }

    /// A clock that advances one second per reading: the budget runs out after a few runs, the
    /// report is a valid prefix, and no shrink runs past the deadline.
    @Test func timeBudgetKeepsAPrefixAndSkipsShrinkingPastTheDeadline() throws {
        let ticks = Ticks()
        var config = Self.configuration(0..<1_000, shrink: true)
        config.timeBudgetSeconds = 6
        config.clock = { ticks.next() }
        let r = try FuzzDriver(strategies: [Self.liar], configuration: config).run().report
        #expect(!r.complete)
        #expect(r.runs.count > 0 && r.runs.count < 10)
        #expect(r.runs.map(\.seed) == Array(0..<UInt64(r.runs.count)))
        #expect(r.failures.allSatisfy { $0.shrunkActions == nil })
    }

    @Test func rejectsDuplicateNamesAndRunCountsThatOverflow() {
        #expect(throws: StrategySetError.duplicateName("instant")) {
            try FuzzDriver(strategies: [AnyStrategy(InstantStrategy()), AnyStrategy(InstantStrategy())])
        }
        #expect(throws: FuzzConfigurationError.noStrategies) { try FuzzDriver(strategies: []) }
        #expect(throws: FuzzConfigurationError.tooManyRuns(seeds: UInt64.max, strategies: 6)) {
            try FuzzDriver(strategies: AnyStrategy.builtIns, configuration: .init(seeds: SeedRange(0..<UInt64.max)))
        }
        #expect(throws: FuzzConfigurationError.jobs(0)) { try FuzzDriver(strategies: [Self.honest], configuration: .init(jobs: 0)) }
        #expect(throws: FuzzConfigurationError.timeBudget(-1)) {
            try FuzzDriver(strategies: [Self.honest], configuration: .init(timeBudgetSeconds: -1))
        }
    }

    @Test func progressIsReportedInOrderAndReachesTheTotal() throws {
        let seen = Seen()
        _ = try FuzzDriver(strategies: [Self.honest, Self.liar], configuration: Self.configuration(0..<3, jobs: 2))
            .run(progress: { seen.add($0) })
        let running = seen.all.filter { $0.phase == .running }
        #expect(running.map(\.completed) == Array(1...6))
        #expect(running.last?.total == 6)
        #expect((running.last?.contractViolations ?? 0) >= 1)
    }
}

/// A fake monotonic clock: 0, 1, 2, … seconds, one step per reading.
final class Ticks: @unchecked Sendable {
    private let lock = NSLock()
    private var t = 0.0
    func next() -> Double { lock.lock(); defer { lock.unlock() }; t += 1; return t - 1 }
}

final class Seen: @unchecked Sendable {
    private let lock = NSLock()
    private var items: [FuzzProgress] = []
    func add(_ p: FuzzProgress) { lock.lock(); items.append(p); lock.unlock() }
    var all: [FuzzProgress] { lock.lock(); defer { lock.unlock() }; return items }
}

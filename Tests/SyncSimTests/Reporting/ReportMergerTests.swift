import Foundation
import Testing
@testable import SyncSim

/// Merging shard folders needs no registry: the strategies (and their contracts) come from the
/// shard reports, so user strategies merge exactly like built-ins.
@Suite struct ReportMergerTests {
    static let strategies = [FuzzDriverTests.liar, FuzzDriverTests.honest]

    static func run(_ shard: Shard?, dir: String) throws -> FuzzReport {
        var config = FuzzDriverTests.configuration(0..<6, shrink: true)
        config.shard = shard
        config.reportDirectory = dir
        return try FuzzDriver(strategies: strategies, configuration: config).run().report
    }

    /// Without timing and the folder-specific replay commands.
    static func comparable(_ r: FuzzReport) throws -> String {
        var r = r
        for i in r.failures.indices { r.failures[i].replay = "" }
        return try FuzzDriverTests.canonical(r)
    }

    @Test func shardsOfUserStrategiesMergeIntoTheWholeReport() throws {
        let whole = try Self.run(nil, dir: FuzzDriverTests.tmp("merge-whole"))
        let a = FuzzDriverTests.tmp("merge-1"), b = FuzzDriverTests.tmp("merge-2"), out = FuzzDriverTests.tmp("merge-out")
        let first = try Self.run(try Shard(1, of: 2), dir: a)
        _ = try Self.run(try Shard(2, of: 2), dir: b)
        let merged = try ReportMerger.merge([a, b], into: out, commandPrefix: "swift run notes-sim")
        #expect(try Self.comparable(merged) == Self.comparable(whole))
        // Coverage over time: a shard's curve is over its own seeds and says so; the merge
        // recomputes the whole run's curve from the merged records.
        #expect(merged.strategies.map(\.coverageTimeline) == whole.strategies.map(\.coverageTimeline))
        #expect(merged.strategies.allSatisfy { $0.coverageTimeline?.runs == 6 })
        #expect(first.strategies.allSatisfy { ($0.coverageTimeline?.runs ?? 0) < 6 })
        #expect(first.timelineScope?.contains("shard 1/2") == true && merged.timelineScope == nil)
        #expect(!merged.allContractsMet)
        for f in merged.failures where f.scenario != nil {
            #expect(f.replay.hasPrefix("swift run notes-sim replay \(out)/scenarios/"))
            #expect(FileManager.default.fileExists(atPath: "\(out)/\(f.scenario!)"))
        }
        #expect(try ReportWriter.load(out).strategies.map(\.contract) == whole.strategies.map(\.contract))
    }

    @Test func hostileReportsAreErrorsNotWritesOutsideTheFolder() throws {
        let a = FuzzDriverTests.tmp("hostile-1")
        var r = try Self.run(nil, dir: a)
        try #require(!r.failures.isEmpty)
        r.failures[0].scenario = "../../escaped.json"
        try AtomicFile.write(try ReportWriter.json(r), to: "\(a)/report.json")
        let out = FuzzDriverTests.tmp("hostile-out")
        #expect(throws: ReportMergeError.self) { try ReportMerger.merge([a], into: out) }
        #expect(!FileManager.default.fileExists(atPath: "\(out)/../../escaped.json"))
        // A report whose contract differs between shards is refused too.
        let b = FuzzDriverTests.tmp("hostile-2")
        var other = try Self.run(nil, dir: b)
        other.strategies[0].contract = []
        try AtomicFile.write(try ReportWriter.json(other), to: "\(b)/report.json")
        let c = FuzzDriverTests.tmp("hostile-3")
        _ = try Self.run(nil, dir: c)
        #expect(throws: ReportMergeError.self) { try ReportMerger.merge([c, b], into: out) }
        #expect(throws: ReportFileError.self) { try ReportMerger.merge(["/nonexistent/folder"], into: out) }
    }

    /// The tenants and `--also` features are part of the workload: the report records them
    /// (and only when set, so default reports read as before), rebuilds the generator from
    /// them, and shards that differ in them do not merge.
    @Test func tenantsAndFeaturesAreRecordedAndMustMatchToMerge() throws {
        func run(tenants: Int, also: [WorkloadFeature], shard: Shard, dir: String) throws -> FuzzReport {
            var config = FuzzDriverTests.configuration(0..<4)
            config.generator.tenants = tenants
            for f in also { f.turnOn(in: &config.generator) }
            config.shard = shard
            config.reportDirectory = dir
            return try FuzzDriver(strategies: Self.strategies, configuration: config).run().report
        }
        let a = FuzzDriverTests.tmp("tenants-1"), b = FuzzDriverTests.tmp("tenants-2"), c = FuzzDriverTests.tmp("tenants-3")
        let first = try run(tenants: 3, also: [.userChoices, .bulk], shard: try Shard(1, of: 2), dir: a)
        #expect(first.options.tenants == 3 && first.options.also == ["bulk", "userChoices"])
        #expect(first.options.generator.tenants == 3 && first.options.generator.bulk && first.options.generator.userChoices && !first.options.generator.syncNow)
        #expect(MarkdownReport.render(first).contains("3 tenants · also bulk,userChoices"))
        #expect(HTMLReport.render(first).contains("<tr><th>tenants</th><td>3</td></tr>"))
        _ = try run(tenants: 0, also: [.userChoices, .bulk], shard: try Shard(2, of: 2), dir: b)
        let out = FuzzDriverTests.tmp("tenants-out")
        #expect(throws: ReportMergeError.self) { try ReportMerger.merge([a, b], into: out) }
        _ = try run(tenants: 3, also: [.bulk], shard: try Shard(2, of: 2), dir: c)
        #expect(throws: ReportMergeError.self) { try ReportMerger.merge([a, c], into: out) }
        _ = try run(tenants: 3, also: [.bulk, .userChoices], shard: try Shard(2, of: 2), dir: c)
        let merged = try ReportMerger.merge([a, c], into: out)
        #expect(merged.options.tenants == 3 && merged.options.also == ["bulk", "userChoices"] && merged.options.shard == nil)
        // A default run leaves both keys out of report.json.
        let plain = try run(tenants: 0, also: [], shard: try Shard(1, of: 2), dir: b)
        let json = try ReportWriter.json(plain)
        #expect(plain.options.tenants == nil && plain.options.also == nil)
        #expect(!json.contains("\"tenants\"") && !json.contains("\"also\""))
        // A hand-edited value out of range is an error naming the JSON path, not a merge.
        var bad = first
        bad.options.tenants = 99
        try AtomicFile.write(try ReportWriter.json(bad), to: "\(a)/report.json")
        do { _ = try ReportMerger.merge([a, c], into: out); Issue.record("merged a report with 99 tenants") }
        catch let e as ReportMergeError { #expect("\(e)".contains("options.tenants is 99")) }
    }

    /// A claimed invariant this build's catalog does not list still gets a cell and is judged.
    @Test func unknownClaimedInvariantsAreNeverDropped() {
        let d = FuzzReport.StrategyDescription(name: "x", summary: "", knownBad: false, arbitration: "serverArrival",
                                               contract: ["convergence", "customInvariant"])
        var rec = RunRecord(strategy: "x", seed: 0, violated: ["customInvariant"], explanations: ["e"], events: 1, settled: true,
                            convergeMs: nil, userWrites: 0, messages: 0, maxPending: 0, writesLost: 0, staleOverwrites: 0,
                            actionKinds: [:], faults: [], situations: [], traceHash: "0")
        rec.seed = 3
        let r = FuzzReport.build(strategies: [d], options: .init(strategies: [], seeds: "0..<4", shard: nil, swarm: true, clients: nil, actions: 60, shrink: false),
                                 complete: true, records: [rec], failures: [],
                                 timing: .init(startedAt: "", wallSeconds: 0, runsPerSecond: 0, shrinkSeconds: 0))
        #expect(r.options.strategies == ["x"])
        #expect(r.strategies[0].contractViolations == ["customInvariant"])
        #expect(!r.allContractsMet)
        #expect(r.invariantColumns.last == "customInvariant")
        #expect(JUnitReport.render(r).contains("name=\"customInvariant\""))
        #expect(MarkdownReport.render(r).contains("`customInvariant`"))
    }
}

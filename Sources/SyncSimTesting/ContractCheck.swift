import Foundation
import SyncSim

/// One invariant a strategy claims and a fuzz sweep found broken, with everything a person needs
/// to fix it: the shrunk story, the command that replays it, and the scenario file.
public struct ContractFailure: Sendable, CustomStringConvertible {
    public var strategy: String
    public var invariant: InvariantID
    /// The first seed (in the sweep) whose run broke the invariant.
    public var seed: UInt64
    public var explanation: String
    public var originalActions: Int
    /// Actions left after shrinking (nil: not shrunk, e.g. the time budget ran out).
    public var shrunkActions: Int?
    /// The shrunk run's story, one numbered line per event (`12  t=340ms  A sends push w3`).
    public var story: [String]
    /// The shell command that reproduces the failure (replays the scenario file when one was
    /// written, else re-runs the seed).
    public var replayCommand: String
    /// The shrunk scenario as a file's text (`Scenario.encoded()`), to attach or commit under
    /// `Scenarios/` as a regression test.
    public var scenarioJSON: String?
    /// Where the scenario file was written, when the check was given a directory.
    public var scenarioPath: String?

    public var description: String {
        var s = "\(strategy) breaks \(invariant.rawValue), which it claims (seed \(seed)"
        if let n = shrunkActions { s += ", shrunk from \(originalActions) to \(n) actions" }
        s += "): \(explanation)\nreplay: \(replayCommand)"
        if let p = scenarioPath { s += "\nscenario: \(p)" }
        if !story.isEmpty { s += "\nstory:\n" + story.joined(separator: "\n") }
        return s
    }
}

/// The verdict of a contract check: which claimed invariants broke, over how many seeds.
public struct ContractCheck: Sendable, CustomStringConvertible {
    public var strategy: String
    /// Seeds actually run (fewer than asked when the time budget stopped the sweep).
    public var seedsRun: Int
    public var seedsPlanned: Int
    public var failures: [ContractFailure]
    /// Invariants broken that the strategy does not claim (expected behaviour, not failures).
    public var unclaimedViolations: [InvariantID]
    /// The full fuzz report, for callers that want more (coverage, metrics).
    public var report: FuzzReport

    /// True when no claimed invariant broke on any seed that ran.
    public var passed: Bool { failures.isEmpty }

    public var description: String {
        if passed {
            return "\(strategy) met its contract over \(seedsRun) of \(seedsPlanned) seeds"
                + (unclaimedViolations.isEmpty ? "" : " (expected, unclaimed: \(unclaimedViolations.map(\.rawValue).joined(separator: ", ")))")
        }
        return "\(strategy) broke its contract over \(seedsRun) of \(seedsPlanned) seeds:\n\n"
            + failures.map(\.description).joined(separator: "\n\n")
    }
}

/// Test helpers for a strategy's contract and a scenario library. These functions return values,
/// so they serve XCTest (`XCTAssertTrue(check.passed, check.description)`) as well as Swift
/// Testing, where `expectContract(_:)` and `expectScenarios(in:strategies:)` record issues.
public enum SyncSimTest {
    /// Fuzzes `strategy` over `seeds` (its own schema, the standard workload) and shrinks the
    /// first failure of each claimed invariant it breaks.
    ///
    /// - Parameters:
    ///   - invariants: user invariants to judge the runs by too (contracts may claim them).
    ///   - scenarioDirectory: where to write the shrunk scenario files (nil: kept in memory and
    ///     returned as `ContractFailure.scenarioJSON`).
    ///   - commandPrefix: how replay commands start (`swift run notes-sim`).
    ///   - timeBudgetSeconds: stop cleanly after this long (nil: no budget); the check then
    ///     covers the seeds that ran and says so.
    public static func checkContract(_ strategy: AnyStrategy, seeds: Range<UInt64> = 0..<100, actions: Int = 60,
                                     invariants: [CustomInvariant] = [], jobs: Int = FuzzConfiguration.defaultJobs,
                                     scenarioDirectory: String? = nil, commandPrefix: String = "swift run syncsim",
                                     timeBudgetSeconds: Double? = nil) throws -> ContractCheck {
        let judged = invariants.isEmpty ? strategy : strategy.judged(by: invariants)
        var config = FuzzConfiguration(seeds: SeedRange(seeds), jobs: jobs, timeBudgetSeconds: timeBudgetSeconds,
                                       generator: .init(actions: actions), reportDirectory: scenarioDirectory,
                                       commandPrefix: commandPrefix)
        config.shrink = true
        let result = try FuzzDriver(strategies: [judged], configuration: config).run()
        let report = result.report
        var failures: [ContractFailure] = []
        var unclaimed: [InvariantID] = []
        for f in report.failures where f.strategy == strategy.name {
            guard let id = InvariantID(rawValue: f.invariant) else { continue }
            guard f.claimed else { unclaimed.append(id); continue }
            // The driver names each shrunk scenario after its cell, written to disk or not.
            let file = f.scenario ?? "scenarios/\(f.strategy)-\(f.invariant)-seed\(f.seed).json"
            let scenario = result.scenarios.first { $0.file == file }
            failures.append(ContractFailure(
                strategy: f.strategy, invariant: id, seed: f.seed, explanation: f.explanation,
                originalActions: f.originalActions, shrunkActions: f.shrunkActions,
                story: f.trace.enumerated().map { "\($0.offset + 1)  t=\($0.element.time)ms  \($0.element.text)" },
                replayCommand: f.replay, scenarioJSON: try? scenario?.scenario.encoded(),
                scenarioPath: scenarioDirectory.flatMap { dir in f.scenario.map { "\(dir)/\($0)" } }))
        }
        return ContractCheck(strategy: strategy.name, seedsRun: report.seedsRun, seedsPlanned: seeds.count,
                             failures: failures, unclaimedViolations: unclaimed, report: report)
    }

    /// `checkContract` for a strategy value (wrapped where its concrete type is known, so the
    /// simulator is specialised for it).
    @inlinable
    public static func checkContract<S: SyncStrategy>(_ strategy: S, seeds: Range<UInt64> = 0..<100, actions: Int = 60,
                                                      invariants: [CustomInvariant] = [], jobs: Int = FuzzConfiguration.defaultJobs,
                                                      scenarioDirectory: String? = nil, commandPrefix: String = "swift run syncsim",
                                                      timeBudgetSeconds: Double? = nil) throws -> ContractCheck {
        try checkContract(AnyStrategy(strategy), seeds: seeds, actions: actions, invariants: invariants, jobs: jobs,
                          scenarioDirectory: scenarioDirectory, commandPrefix: commandPrefix, timeBudgetSeconds: timeBudgetSeconds)
    }
}

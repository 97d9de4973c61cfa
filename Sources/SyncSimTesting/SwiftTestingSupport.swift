#if canImport(Testing)
import Testing
import SyncSim

extension SyncSimTest {
    /// Swift Testing: fuzzes `strategy` and records one issue per claimed invariant it breaks —
    /// the explanation, the shrunk story and the replay command in the issue, the scenario file
    /// attached — at the caller's source location. Returns the check for further assertions.
    ///
    /// ```swift
    /// @Test func notesMeetTheirContract() throws {
    ///     try SyncSimTest.expectContract(NotesLWW(), seeds: 0..<200, commandPrefix: "swift run notes-sim")
    /// }
    /// ```
    @discardableResult
    @inlinable
    public static func expectContract<S: SyncStrategy>(_ strategy: S, seeds: Range<UInt64> = 0..<100, actions: Int = 60,
                                                       invariants: [CustomInvariant] = [], jobs: Int = FuzzConfiguration.defaultJobs,
                                                       scenarioDirectory: String? = nil, commandPrefix: String = "swift run syncsim",
                                                       timeBudgetSeconds: Double? = nil,
                                                       sourceLocation: SourceLocation = #_sourceLocation) throws -> ContractCheck {
        let check = try checkContract(AnyStrategy(strategy), seeds: seeds, actions: actions, invariants: invariants, jobs: jobs,
                                      scenarioDirectory: scenarioDirectory, commandPrefix: commandPrefix,
                                      timeBudgetSeconds: timeBudgetSeconds)
        for f in check.failures {
            Issue.record(Comment(rawValue: f.description), sourceLocation: sourceLocation)
            #if compiler(>=6.2)
            if let json = f.scenarioJSON {
                Attachment.record(json, named: "\(f.strategy)-\(f.invariant.rawValue)-seed\(f.seed).json", sourceLocation: sourceLocation)
            }
            #endif
        }
        return check
    }

    /// Swift Testing: replays every scenario file under `folder` as a regression suite and
    /// records one issue per unmet expectation (or unreadable file), with the replay command.
    @discardableResult
    public static func expectScenarios(in folder: String, strategies: [AnyStrategy], commandPrefix: String = "swift run syncsim",
                                       sourceLocation: SourceLocation = #_sourceLocation) -> [ScenarioOutcome] {
        let outcomes = replayScenarios(in: folder, strategies: strategies, commandPrefix: commandPrefix)
        if outcomes.isEmpty {
            Issue.record("no scenario file with an expectation for these strategies under \(folder)", sourceLocation: sourceLocation)
        }
        for o in outcomes where !o.met {
            Issue.record(Comment(rawValue: o.description), sourceLocation: sourceLocation)
        }
        return outcomes
    }
}
#endif

/// What a fuzz run produced: the report, and the shrunk scenarios (also written under the
/// report directory when there is one).
public struct FuzzResult: Sendable {
    /// A shrunk failure as a scenario file: the path is relative to the report directory
    /// (`scenarios/<strategy>-<invariant>-seed<N>.json`).
    public struct ShrunkScenario: Sendable {
        public var file: String
        public var scenario: Scenario
    }

    public var report: FuzzReport
    public var scenarios: [ShrunkScenario]
    public var reportDirectory: String?
}

extension FuzzReport {
    /// What a report says about one strategy: name, summary, known-bad flag, arbitration and
    /// contract. Taken from the strategy value that ran (`init(_: StrategyInfo)`), or from the
    /// shard reports being merged, and never looked up by name: a user strategy the reporting
    /// code has never heard of is judged by its own contract, like a built-in.
    public struct StrategyDescription: Codable, Hashable, Sendable {
        public var name: String
        public var summary: String
        public var knownBad: Bool
        public var arbitration: String
        /// Claimed invariants, in catalog order.
        public var contract: [String]

        public init(name: String, summary: String, knownBad: Bool, arbitration: String, contract: [String]) {
            self.name = name
            self.summary = summary
            self.knownBad = knownBad
            self.arbitration = arbitration
            self.contract = contract
        }

        public init(_ info: StrategyInfo) {
            self.init(name: info.name, summary: info.summary, knownBad: info.knownBad, arbitration: info.arbitration.rawValue,
                      contract: InvariantID.allCases.filter { info.contract.contains($0) }.map(\.rawValue))
        }
    }
}

extension FuzzReport.StrategyReport {
    /// The description this row was built from (what `merge` needs to rebuild the report).
    public var strategyDescription: FuzzReport.StrategyDescription {
        .init(name: name, summary: summary, knownBad: knownBad, arbitration: arbitration, contract: contract)
    }
}

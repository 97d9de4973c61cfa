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
        /// Claimed invariants: built-ins in catalog order, then user invariants by id.
        public var contract: [String]
        /// The user invariants the strategy was also judged by, by id (absent when none, so
        /// reports without user invariants read as before).
        public var userInvariants: [String]?

        public init(name: String, summary: String, knownBad: Bool, arbitration: String, contract: [String],
                    userInvariants: [String]? = nil) {
            self.name = name
            self.summary = summary
            self.knownBad = knownBad
            self.arbitration = arbitration
            self.contract = contract
            self.userInvariants = userInvariants
        }

        public init(_ info: StrategyInfo, userInvariants: [InvariantID] = []) {
            self.init(name: info.name, summary: info.summary, knownBad: info.knownBad, arbitration: info.arbitration.rawValue,
                      contract: info.contract.sorted().map(\.rawValue),
                      userInvariants: userInvariants.isEmpty ? nil : userInvariants.sorted().map(\.rawValue))
        }

        /// The description of a strategy as it runs: its info and the user invariants it is judged by.
        public init(_ strategy: AnyStrategy) {
            self.init(strategy.info, userInvariants: strategy.invariants.map(\.id))
        }
    }
}

extension FuzzReport.StrategyReport {
    /// The description this row was built from (what `merge` needs to rebuild the report).
    public var strategyDescription: FuzzReport.StrategyDescription {
        .init(name: name, summary: summary, knownBad: knownBad, arbitration: arbitration, contract: contract,
              userInvariants: userInvariants)
    }
}

extension FuzzReport {
    /// What a report says about one strategy: name, summary, known-bad flag, arbitration,
    /// contract and the user invariants it was judged by. Taken from the strategy value that ran
    /// (`init(_: AnyStrategy)`), or from the shard reports being merged, and never looked up by
    /// name: a user strategy the reporting code has never heard of is judged by its own contract,
    /// like a built-in, and a user invariant by the summary it came with.
    public struct StrategyDescription: Codable, Hashable, Sendable {
        public var name: String
        public var summary: String
        public var knownBad: Bool
        public var arbitration: String
        /// Claimed invariants: built-ins in catalog order, then user invariants by id (the order
        /// of `InvariantID`).
        public var contract: [String]
        /// The user invariants every run of the strategy was also judged by, in id order (empty:
        /// the built-ins only). Each gets a cell in the strategy's row, so a report tells "checked
        /// and held" (a cell with no violations) from "not checked" (no cell); and each carries
        /// its summary, so `merge` can show it without knowing the invariant.
        public var userInvariants: [InvariantSummary]
        /// Invariants claimed only under a condition on the run's options, in catalog order
        /// (empty: none; absent from JSON then, so older reports read the same).
        public var conditional: [ConditionalClaimSummary]

        public init(name: String, summary: String, knownBad: Bool, arbitration: String, contract: [String],
                    userInvariants: [InvariantSummary] = [], conditional: [ConditionalClaimSummary] = []) {
            self.name = name
            self.summary = summary
            self.knownBad = knownBad
            self.arbitration = arbitration
            self.contract = contract
            self.userInvariants = userInvariants
            self.conditional = conditional
        }

        /// The conditional claim on `invariant` (unless it is claimed unconditionally anyway).
        public func condition(of invariant: String) -> ConditionalClaimSummary? {
            contract.contains(invariant) ? nil : conditional.first { $0.invariant == invariant }
        }

        /// A strategy judged by the built-ins only.
        public init(_ info: StrategyInfo) {
            self.init(name: info.name, summary: info.summary, knownBad: info.knownBad, arbitration: info.arbitration.rawValue,
                      contract: info.contract.sorted().map(\.rawValue),
                      conditional: info.conditionalContract.sorted { $0.invariant < $1.invariant }.map {
                          ConditionalClaimSummary(invariant: $0.invariant.rawValue, condition: $0.condition.rawValue, text: $0.condition.description)
                      })
        }

        /// The strategy that runs: its info and the user invariants it is judged by
        /// (`AnyStrategy.invariants`, sorted by id here so the report never depends on the order
        /// they were given in).
        public init(_ strategy: AnyStrategy) {
            self.init(strategy.info)
            userInvariants = strategy.invariants.sorted { $0.id < $1.id }.map(InvariantSummary.init)
        }

        enum CodingKeys: String, CodingKey { case name, summary, knownBad, arbitration, contract, userInvariants, conditional }

        /// `userInvariants` is optional in JSON (absent: none), as in `StrategyReport`.
        public init(from decoder: Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(name: try c.decode(String.self, forKey: .name), summary: try c.decode(String.self, forKey: .summary),
                      knownBad: try c.decode(Bool.self, forKey: .knownBad), arbitration: try c.decode(String.self, forKey: .arbitration),
                      contract: try c.decode([String].self, forKey: .contract),
                      userInvariants: try c.decodeIfPresent([InvariantSummary].self, forKey: .userInvariants) ?? [],
                      conditional: try c.decodeIfPresent([ConditionalClaimSummary].self, forKey: .conditional) ?? [])
        }

        public func encode(to encoder: Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(summary, forKey: .summary)
            try c.encode(knownBad, forKey: .knownBad)
            try c.encode(arbitration, forKey: .arbitration)
            try c.encode(contract, forKey: .contract)
            if !userInvariants.isEmpty { try c.encode(userInvariants, forKey: .userInvariants) }
            if !conditional.isEmpty { try c.encode(conditional, forKey: .conditional) }
        }
    }

    /// A conditional claim as a report shows it: the invariant, the condition's raw value (what
    /// `RunRecord.conditions` lists) and its text ("when persistence is on").
    public struct ConditionalClaimSummary: Codable, Hashable, Sendable {
        public var invariant: String
        public var condition: String
        public var text: String
        public init(invariant: String, condition: String, text: String) {
            self.invariant = invariant
            self.condition = condition
            self.text = text
        }
    }

    /// A user invariant as a report shows it: its id and one-line summary. Reports carry these
    /// (rather than the `CustomInvariant`, whose oracle is code) so a report, or a merge of shard
    /// reports, can explain a user invariant's column without the tool that defined it.
    public struct InvariantSummary: Codable, Hashable, Sendable {
        public var id: String
        public var summary: String

        public init(id: String, summary: String) {
            self.id = id
            self.summary = summary
        }

        public init(_ invariant: CustomInvariant) {
            self.init(id: invariant.id.rawValue, summary: invariant.summary)
        }
    }
}

extension FuzzReport.StrategyReport {
    /// The description this row was built from (what `merge` needs to rebuild the report).
    public var strategyDescription: FuzzReport.StrategyDescription {
        .init(name: name, summary: summary, knownBad: knownBad, arbitration: arbitration, contract: contract,
              userInvariants: userInvariants ?? [], conditional: conditional ?? [])
    }
}

/// One broken invariant: what, when, where, and a one-line explanation a person can act on.
public struct Violation: Hashable, Sendable, Comparable, CustomStringConvertible {
    public var invariant: InvariantID
    /// Virtual time at which the oracle saw it (end-of-run checks use the final time).
    public var time: Int64
    public var client: ClientID?
    public var entity: EntityID?
    public var explanation: String
    /// What did it, for invariants an offending transaction breaks: its origin and the kind of
    /// step (`admin update`, `client B delete`…). The shrinker keeps it stable, so a shrunk
    /// schedule fails for the same reason, not only the same invariant. Nil when none applies.
    public var culprit: String?

    public init(_ invariant: InvariantID, at time: Int64, client: ClientID? = nil, entity: EntityID? = nil, _ explanation: String) {
        self.invariant = invariant
        self.time = time
        self.client = client
        self.entity = entity
        self.explanation = explanation
    }

    public static func < (a: Violation, b: Violation) -> Bool {
        if a.time != b.time { return a.time < b.time }
        if a.invariant != b.invariant { return a.invariant < b.invariant }
        if a.explanation != b.explanation { return a.explanation < b.explanation }
        return (a.client?.index ?? -1) < (b.client?.index ?? -1)
    }

    public var description: String {
        "t=\(time)ms  \(invariant.rawValue)" + (client.map { "  client \($0)" } ?? "") + (entity.map { "  entity \($0.raw)" } ?? "") + "  \(explanation)"
    }
}

/// "Fails the same way": the invariant the scenario is about, on the same entity when the
/// original violation names one.
///
/// Why the entity too: a counterfactual that breaks the same invariant on another entity is a
/// different failure (changing which profile is edited can make another profile vanish), and
/// calling it "the same" would mark the part free when the story it tells has changed. The
/// client is not compared: varying an action's client is one of the questions asked.
public struct FailureSignature: Hashable, Sendable {
    public var invariant: InvariantID
    public var entity: EntityID?

    public init(invariant: InvariantID, entity: EntityID?) {
        self.invariant = invariant
        self.entity = entity
    }

    /// The signature of `violation`.
    public init(_ violation: Violation) {
        self.init(invariant: violation.invariant, entity: violation.entity)
    }

    /// Whether a run with these violations fails the same way.
    public func matches(_ violations: [Violation]) -> Bool {
        violations.contains { $0.invariant == invariant && (entity == nil || $0.entity == entity) }
    }
}

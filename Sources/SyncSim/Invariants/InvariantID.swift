/// The invariant catalog's ids. Raw values appear in reports, scenario files and on the command
/// line; never rename one. Every invariant is a **safety** property (violated at a point in time,
/// checked during the run or at its end) except `liveness`. Oracles live in `Monitor.swift`.
public enum InvariantID: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    /// After the heal phase, every client's view of every subscribed query equals the server's
    /// answer to that query, evaluated by the oracle on the server's data, and no client holds a
    /// pending write the user was not told failed. Checked at the end of the run.
    case convergence
    /// Concurrent edits of different fields of one entity all survive: a field's final value is
    /// never the work of a transaction whose user intents targeted *other* fields (a full-entity
    /// snapshot re-writing a stale value), unless a later write to the same field or a delete
    /// superseded it. Computed from the users' intents and the server's transaction log.
    case disjointFieldMerge
    /// For each (entity, field), the final value is the value of the last write in the
    /// strategy's declared arbitration order — server arrival (the last applied transaction),
    /// client timestamp (the latest device clock) or hybrid logical clock (no write made so much
    /// later that its clock must exceed the winner's may lose) — computed by the oracle.
    case lwwConvergence
    /// The server deletes an entity only if a user or the server-side writer asked to delete it:
    /// a delete in the transaction log of an entity no one asked to delete is a ghost deletion.
    case noGhostDeletion
    /// Once a deletion has been applied on the server, the entity does not exist there again.
    /// Entity ids are never reused, so any reappearance (an upsert, a stale re-send) is a
    /// resurrection.
    case noResurrection
    /// A typing burst (keystroke-prefix updates of one text field) that no other write raced —
    /// none made during or after it, none applied after it began to land, none stamped later
    /// under a timestamp order — and whose last keystroke took effect ends at the last keystroke.
    case typingConvergesToLastKeystroke
    /// Every write a client accepted is, in the end, applied on the server or reported to the
    /// user as rejected. A restart that drops queued writes (persistence off, or a volatile
    /// queue) is the data loss it is.
    case noLostAcknowledgedWrite
    /// Right after a local write, every subscription of that client that has yielded shows it
    /// (created entities that match the query appear, updated fields have their new values,
    /// deleted roots disappear).
    case readYourWrites
    /// A user's write takes effect on the server at most once, despite duplicated messages,
    /// retries and replays: no write id appears in two applied transactions.
    case noDuplicateApplication
    /// `queryOnce` while the device is offline fails at once with the dedicated offline error
    /// and never returns a possibly stale result as if it were fresh (seed 000 §4.1).
    case queryOnceOfflineFails
    /// With persistence on, subscribing while offline to a query the client has seen a server
    /// result for yields the cached result at once (seed 000 §4.1).
    case cachedSubscriptionOffline
    /// No connection attempt is made while the device reports it is offline (seed 000 §2.1).
    case noReconnectWhileOffline
    /// A local change to a child entity in a subscription's result tree (a post under
    /// `profiles with posts`) makes that subscription yield (seed 000 §3.5).
    case nestedSubscriptionReyields
    /// At the queue cap a new write is either refused with a user-visible error or accepted;
    /// nothing already queued disappears without being applied or reported (seed 003).
    case queueCapNoSilentDrop
    /// After heal the run settles — nothing in flight, nothing pending, no open prompt, every
    /// subscription equal to the server's answer — within the virtual-time and event bounds.
    /// The only liveness property: violated by running out of time or events, never a hang.
    case liveness

    public static func < (a: InvariantID, b: InvariantID) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    public var description: String { rawValue }

    /// Safety invariants can be violated at a point in time; liveness ones only by running out
    /// of time or events.
    public var isLiveness: Bool { self == .liveness }
}

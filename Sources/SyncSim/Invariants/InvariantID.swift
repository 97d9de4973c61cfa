/// The invariant catalog's ids. Raw values appear in reports, scenario files and on the command
/// line; never rename one.
public enum InvariantID: String, CaseIterable, Sendable, Codable, Comparable, CustomStringConvertible {
    case convergence
    case disjointFieldMerge
    case lwwConvergence
    case noGhostDeletion
    case noResurrection
    case typingConvergesToLastKeystroke
    case noLostAcknowledgedWrite
    case readYourWrites
    case noDuplicateApplication
    case queryOnceOfflineFails
    case cachedSubscriptionOffline
    case noReconnectWhileOffline
    case nestedSubscriptionReyields
    case queueCapNoSilentDrop
    case liveness

    public static func < (a: InvariantID, b: InvariantID) -> Bool {
        allCases.firstIndex(of: a)! < allCases.firstIndex(of: b)!
    }

    public var description: String { rawValue }

    /// Safety invariants can be violated at a point in time; liveness ones only by running out
    /// of time or events.
    public var isLiveness: Bool { self == .liveness }
}

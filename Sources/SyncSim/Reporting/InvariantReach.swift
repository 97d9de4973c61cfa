/// Reach goals: for each built-in invariant, the situation that must occur for a run to test it.
///
/// An invariant that held in every run proves nothing if its triggering situation never
/// occurred: `queueCapNoSilentDrop` holds trivially when no queue ever fills, and before the
/// stress profile none did in 65,000 runs. Like a `sometimes` assertion (Antithesis) or
/// Hypothesis's `target`, each claimed invariant therefore reports the share of runs that reached
/// its situation, and the report lists claims reached in under 1% of runs (`vacuousBelow`).
///
/// The map is by raw value, so it covers invariants added later without a rebuild of old reports;
/// an invariant without an entry (user invariants, and built-ins that every run with a write
/// exercises, such as `convergence`) has no reach goal and is shown as such, never as reached.
public enum InvariantReach {
    /// Below this share of runs a claim's situation counts as not reached (1%).
    public static let vacuousBelow = 0.01

    /// The situation whose occurrence makes a run a test of `invariant`, if there is one.
    public static func situation(for invariant: String) -> Situation? {
        switch invariant {
        case "disjointFieldMerge": return .concurrentDisjointFields
        case "lwwConvergence": return .concurrentSameFieldOffline
        case "noGhostDeletion", "noResurrection": return .deleteRacingEdit
        case "typingConvergesToLastKeystroke": return .typingBurstOffline
        case "noLostAcknowledgedWrite": return .restartWithPendingWrites
        case "noDuplicateApplication", "noDuplicateRows": return .duplicateMutationDelivery
        case "queryOnceOfflineFails": return .queryOnceOffline
        case "cachedSubscriptionOffline": return .subscribeWhileOffline
        case "noReconnectWhileOffline", "noRequestWhileOffline", "neverRevertOwnWrite": return .writeWhileOffline
        case "nestedSubscriptionReyields": return .partialViewWrite
        case "queueCapNoSilentDrop": return .queueFull
        case "toldOutcomeIsTrue", "noPhantomWrite": return .writeRejected
        case "clientWriteOrder", "monotonicReads": return .messageLost
        case "timelyFeedback": return .longOffline
        // A link raced by a delete of either end or by a re-link: where a dangling link or a
        // lost link edit can arise (a delete long after a link tests nothing: any server that
        // clears links on delete passes it).
        case "linkIntegrity": return .linkRace
        default: return nil
        }
    }
}

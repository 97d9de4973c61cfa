/// Which built-in oracles a history has the data for. An oracle whose inputs were never
/// recorded would read silence as an answer (no yields recorded looks like "never showed the
/// write"), so it is not run, and the check says why; its violations are left out.
enum HistoryCoverage {
    /// The reason `invariant` cannot be judged from a history with these facts, or nil if it can.
    static func missing(_ invariant: InvariantID, seen: HistoryReplayer.Seen, header: HistoryHeader, arbitrationKnown: Bool) -> String? {
        let views = seen.views ? nil : "no subscription results recorded (yield lines with a result, or view lines)"
        let queue = seen.queue ? nil : "no pending-queue snapshots recorded (queue lines)"
        let net = seen.network ? nil : "no network observations recorded (net lines)"
        let arbitration = arbitrationKnown ? nil : "no conflict rule declared (header arbitration, or check --arbitration)"
        switch invariant {
        case .convergence, .readYourWrites, .nestedSubscriptionReyields, .noPhantomWrite, .monotonicReads: return views
        case .lwwConvergence, .disjointFieldMerge, .typingConvergesToLastKeystroke: return arbitration
        case .neverRevertOwnWrite: return views ?? queue ?? arbitration
        case .noLostAcknowledgedWrite: return queue
        case .queueCapNoSilentDrop: return header.queueCap == nil ? "no queue cap declared (header queueCap)" : queue
        case .cachedSubscriptionOffline: return net ?? views
        case .queryOnceOfflineFails, .noReconnectWhileOffline, .noRequestWhileOffline: return net
        case .timelyFeedback: return seen.heal ? nil : "no moment the network became healthy recorded (a heal line, or heal on the end line)"
        case .noDuplicateRows: return "no server row ids recorded (the history format has no row ids yet)"
        case .noGhostDeletion, .noResurrection, .noDuplicateApplication, .toldOutcomeIsTrue, .clientWriteOrder, .linkIntegrity, .liveness:
            return nil
        case .tenantIsolation: return "no tenants recorded (the history format has no tenant lines)"
        default:
            // A user invariant judges a simulated run's whole record (`RunHistory`), which a
            // recording does not have.
            return "a user invariant: it judges a simulated run's record (RunHistory), not a recorded history"
        }
    }
}

/// The InstantDB server's per-session transact queue with combining, modelled when
/// `StrategyOptions.instantCombineTransacts` is on (InstantDB: flag `combine-transacts?`).
///
/// | rule | source |
/// |---|---|
/// | a session's transacts form one group; its worker handles one at a time, the others wait in arrival order | session.clj `group-key` (`[:transact session-id]`), grouped-queue |
/// | a transact arriving while an earlier one waits (not yet taken by the worker) is combined with the last waiting one when their steps match: same count, pairwise the same op (`add-triple` only), with a mode, the same entity, the same attribute, the same mode, cardinality one | session.clj `combine-transact`, `matching-steps?` |
/// | the combined event is the later one; the earlier ones ride along as its redundant events and are never committed | `combine-transact` (`:redundant-events`) |
/// | on commit every redundant event gets `transact-ok` with the one tx id, then the event itself | `handle-transact!` |
/// | on failure every redundant event gets the same `error`, then the event itself | `handle-error!` |
/// | a closed session's waiting events are dropped unanswered (the client replays them after its next `init-ok`) | `process-receive-q-event` (session not found) |
///
/// Model choices: a step matches when both are creates or both updates (instaml writes one
/// `add-triple` with a mode per field, and every value field is cardinality one) of the same
/// entity and the same fields in the same order, with the same upsert flag; link steps are never
/// combined (their cardinality depends on the link). The worker's time per transact is
/// `handleMs`, an invented figure (a database commit): the window in which later transacts
/// queue and can combine. The commit happens when the worker takes the event, so its answer
/// goes out at once, as without combining.
struct InstantTransactQueue: Sendable {
    /// A transact the session's worker has not taken yet.
    struct Waiting: Sendable {
        var eventID: UInt64
        var writes: [WriteID]
        var steps: [InstantStep]
        /// The earlier events combined into this one (oldest first).
        var redundant: [(eventID: UInt64, writes: [WriteID])] = []
    }

    /// The worker's time on one transact (invented: a database commit).
    static let handleMs: Int64 = 20

    /// Per client: the worker is busy until this timer fires.
    private(set) var busy: [TimerID?]
    /// Per client: the transacts waiting for the worker, in arrival order.
    private(set) var waiting: [[Waiting]]

    init(clients: Int) {
        busy = Array(repeating: nil, count: clients)
        waiting = Array(repeating: [], count: clients)
    }

    /// The worker's timer for client `c` (one at a time per session, so one id per client).
    static func timer(for c: ClientID) -> TimerID { TimerID(UInt32(c.index) + 1) }

    /// A transact arrived from `c`: returns it when the worker is free (the caller commits it and
    /// the worker is busy from now on), else queues it, combined with the last waiting one if
    /// their steps match.
    mutating func arrived(_ c: ClientID, _ t: Waiting, out: inout ServerOutbox<InstantDown>) -> Waiting? {
        guard busy[c.index] != nil else {
            startWorker(c, out: &out)
            return t
        }
        if let last = waiting[c.index].last, Self.matching(last.steps, t.steps) {
            var merged = t
            merged.redundant = last.redundant + [(last.eventID, last.writes)]
            waiting[c.index][waiting[c.index].count - 1] = merged
        } else {
            waiting[c.index].append(t)
        }
        return nil
    }

    /// A server timer fired: the next transact of that session to commit, if it was a worker's
    /// timer and something waits (the worker is then busy again).
    mutating func timerFired(_ t: TimerID, out: inout ServerOutbox<InstantDown>) -> (ClientID, Waiting)? {
        guard let i = busy.firstIndex(where: { $0 == t }) else { return nil }
        busy[i] = nil
        guard !waiting[i].isEmpty else { return nil }
        let next = waiting[i].removeFirst()
        startWorker(ClientID(i), out: &out)
        return (ClientID(i), next)
    }

    /// `c`'s session closed: what waits is dropped unanswered and the worker is free.
    mutating func sessionClosed(_ c: ClientID, out: inout ServerOutbox<InstantDown>) {
        waiting[c.index].removeAll()
        if let t = busy[c.index] {
            out(.cancelTimer(t))
            busy[c.index] = nil
        }
    }

    private mutating func startWorker(_ c: ClientID, out: inout ServerOutbox<InstantDown>) {
        let t = Self.timer(for: c)
        busy[c.index] = t
        out(.setTimer(t, afterMs: Self.handleMs))
    }

    /// `matching-steps?`: the same number of steps, pairwise the same kind of value write
    /// (create or update, as `add-triple`s with a mode) of the same entity and fields, same mode.
    static func matching(_ a: [InstantStep], _ b: [InstantStep]) -> Bool {
        guard a.count == b.count, !a.isEmpty else { return false }
        for (x, y) in zip(a, b) {
            guard x.upsert == y.upsert else { return false }
            switch (x.op, y.op) {
            case (.update(let e1, _, let f1), .update(let e2, _, let f2)),
                 (.create(let e1, _, let f1), .create(let e2, _, let f2)):
                guard e1 == e2, !f1.isEmpty, f1.count == f2.count else { return false }
                for k in f1.indices where f1[k].field != f2[k].field { return false }
            default:
                return false
            }
        }
        return true
    }
}

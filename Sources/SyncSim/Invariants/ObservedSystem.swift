/// What the oracles in `Monitor` read of the system they judge, besides the events they are fed:
/// what each client shows per subscription and holds in its pending queue at the moment of the
/// call, the server's data, the run's options, and the history so far.
///
/// Why a protocol: the same oracles judge a simulated run (`Simulator<S>` conforms, reading its
/// machines in place; while it runs it lends itself as `SimulatorView<S>`, a pointer to it that
/// conforms by reading it, so the monitor it holds need not be moved out for the call) and a
/// recorded history of a real system (`HistoryReplayer` conforms, answering from what the
/// recording said last). There is one copy of the oracles; only how their inputs arrive differs.
/// `@usableFromInline` so the `@inlinable` simulator can pass itself; the `Monitor` methods that
/// take one stay compiled in SyncSim, generic over it, as they were generic over the strategy
/// before.
@usableFromInline
protocol ObservedSystem {
    /// Now, in the history's time (virtual milliseconds in a simulation).
    var virtualTime: Int64 { get }
    /// Everything recorded so far: intents, the server's log, what users were told, restarts.
    var history: History { get }
    /// `history.intents`, lent in place for the call: reading `history` copies the whole
    /// history value (a retain and a release of each list it holds), which the oracles that run
    /// at every yield cannot afford for a look at a few intents.
    func withIntents<R>(_ body: (UnsafeBufferPointer<History.Intent>) -> R) -> R
    var clientCount: Int { get }
    /// The client's write-queue cap (`queueCapNoSilentDrop`).
    var queueCap: Int { get }
    /// Whether clients keep durable state across restarts (`cachedSubscriptionOffline`, stories).
    var persistence: Bool { get }
    /// The conflict rule the system declares: how "last writer" is ordered.
    var arbitration: Arbitration { get }
    /// How far a client's clock runs ahead of the server's (0 when unknown).
    func skew(of c: ClientID) -> Int64
    /// The app's open subscriptions on a client, in id order.
    func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)]
    /// What subscription `s` of client `c` shows now; nil if it has shown nothing.
    func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult?
    /// The client's pending (unacknowledged) writes now, in queue order.
    func pendingWrites(of c: ClientID) -> [WriteID]
    func pendingWriteCount(of c: ClientID) -> Int
    /// A count that changes whenever client `c`'s machine may have changed (nil: unknown). Two
    /// equal answers mean it showed and queued the same in between: the oracles then skip
    /// reading its queue again (`Monitor.closedAgainst`).
    func steps(of c: ClientID) -> UInt64?
    /// Whether the client's device reports offline now.
    func isOffline(_ c: ClientID) -> Bool
    /// Whether the device reports online but cannot reach the server now.
    func isUnreachable(_ c: ClientID) -> Bool
    /// The server's data now.
    var serverData: EntityStore { get }
    /// The server data client `c` is judged against now: its tenant's; nil while logged out.
    func serverData(seenBy c: ClientID) -> EntityStore?
    /// Every tenant's server data in one store (entity ids are unique across tenants).
    var everyTenantsData: EntityStore { get }
    /// Writes waiting in the client's local databases of tenants it is not in now.
    func parkedWrites(of c: ClientID) -> [WriteID]
}

/// Without tenants (a recorded history has none): one server, nothing parked.
extension ObservedSystem {
    func withIntents<R>(_ body: (UnsafeBufferPointer<History.Intent>) -> R) -> R { history.intents.withUnsafeBufferPointer(body) }
    func serverData(seenBy c: ClientID) -> EntityStore? { serverData }
    var everyTenantsData: EntityStore { serverData }
    func parkedWrites(of c: ClientID) -> [WriteID] { [] }
    /// Unknown: a recorded history says nothing about when a machine changed.
    func steps(of c: ClientID) -> UInt64? { nil }
}

extension Simulator: ObservedSystem {
    @inlinable var queueCap: Int { options.queueCap }
    @inlinable func withIntents<R>(_ body: (UnsafeBufferPointer<History.Intent>) -> R) -> R { _history.intents.withUnsafeBufferPointer(body) }
    @inlinable var persistence: Bool { options.persistence }
    @inlinable var arbitration: Arbitration { strategy.info.arbitration }
    @inlinable func skew(of c: ClientID) -> Int64 { options.skew(of: c) }
    // Read in place, never through `client(_:)`, which copies the machine, nor as
    // `clients[i].x`: a getter the optimiser cannot see into (declared apart from the code this
    // simulator is specialised in) is then handed a copy of the whole machine (a retain and a
    // release per field), on every yield that checks a pending queue. `readClient` lends the
    // element in place, as the mutating `withClient` does; it only reads.
    @inlinable func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { readClient(c) { $0.result(of: s) } }
    @inlinable func pendingWrites(of c: ClientID) -> [WriteID] { readClient(c) { $0.pendingWrites } }
    @inlinable func pendingWriteCount(of c: ClientID) -> Int { readClient(c) { $0.pendingWriteCount } }
    @inlinable func steps(of c: ClientID) -> UInt64? { clientSteps[c.index] }

    /// Lends client `c`'s machine to `body` in place, through its storage, without a copy.
    /// `body` must not change it (it is declared `inout` only so that nothing is copied to call a
    /// getter; the index is checked as `clients[i]` checks it).
    @inlinable @inline(__always)
    func readClient<R>(_ c: ClientID, _ body: (inout S.Client) -> R) -> R {
        clients.withUnsafeBufferPointer { b in
            precondition(c.index >= 0 && c.index < b.count, "no such client")
            return body(&UnsafeMutablePointer(mutating: b.baseAddress! + c.index).pointee)
        }
    }
    @inlinable func isOffline(_ c: ClientID) -> Bool { links[c.index].device == .offline }
    @inlinable func isUnreachable(_ c: ClientID) -> Bool { links[c.index].device == .online && !links[c.index].reachable }
}

/// What the oracles read of a running simulator while it lends them its monitor (`withMonitor`):
/// the simulator itself, read in place through a pointer.
///
/// Why not the simulator as a value (as before): the monitor is part of the simulator, so
/// handing both to one call (the monitor `inout`, the simulator to read) needed the monitor
/// moved out of it for the call and back in after, and the monitor is hundreds of bytes: two
/// to three copies of it per told event and per user command (`memcpy` was a visible share of
/// `recordEvent` and `userCommand`). Through this view the monitor is changed where it lies and
/// the simulator is read where it lies. Sound because the oracles never read the monitor
/// through it (`ObservedSystem` has no such member) and never keep the view beyond the call.
@usableFromInline
struct SimulatorView<S: SyncStrategy>: ObservedSystem {
    @usableFromInline let base: UnsafeMutablePointer<Simulator<S>>

    @inlinable init(_ base: UnsafeMutablePointer<Simulator<S>>) { self.base = base }

    /// Every read goes through here: the simulator handed to `body` as `inout` (its address),
    /// never as a value loaded from the pointer. Calling a method on `base.pointee` itself made
    /// the compiler copy the whole simulator (a retain and a release of each of its fields) for
    /// the call, as it cannot tell that nothing writes the memory meanwhile; `body` only reads.
    @inlinable @inline(__always)
    func read<R>(_ body: (inout Simulator<S>) -> R) -> R { body(&base.pointee) }

    @inlinable var virtualTime: Int64 { read { $0.virtualTime } }
    @inlinable var history: History { read { $0._history } }
    @inlinable func withIntents<R>(_ body: (UnsafeBufferPointer<History.Intent>) -> R) -> R {
        read { $0._history.intents.withUnsafeBufferPointer(body) }
    }
    @inlinable var clientCount: Int { read { $0.clientCount } }
    @inlinable var queueCap: Int { read { $0.queueCap } }
    @inlinable var persistence: Bool { read { $0.persistence } }
    @inlinable var arbitration: Arbitration { read { $0.arbitration } }
    @inlinable func skew(of c: ClientID) -> Int64 { read { $0.skew(of: c) } }
    @inlinable func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { read { $0.activeSubs[c.index] } }
    @inlinable func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { read { $0.shown(c, s) } }
    @inlinable func pendingWrites(of c: ClientID) -> [WriteID] { read { $0.pendingWrites(of: c) } }
    @inlinable func pendingWriteCount(of c: ClientID) -> Int { read { $0.pendingWriteCount(of: c) } }
    @inlinable func steps(of c: ClientID) -> UInt64? { read { $0.clientSteps[c.index] } }
    @inlinable func isOffline(_ c: ClientID) -> Bool { read { $0.isOffline(c) } }
    @inlinable func isUnreachable(_ c: ClientID) -> Bool { read { $0.isUnreachable(c) } }
    @inlinable var serverData: EntityStore { read { $0.serverData } }
    @inlinable func serverData(seenBy c: ClientID) -> EntityStore? { read { $0.serverData(seenBy: c) } }
    @inlinable var everyTenantsData: EntityStore { read { $0.everyTenantsData } }
    @inlinable func parkedWrites(of c: ClientID) -> [WriteID] { read { $0.parkedWrites(of: c) } }
}

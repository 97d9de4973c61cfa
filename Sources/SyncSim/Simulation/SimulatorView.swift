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
    @usableFromInline let base: UnsafePointer<Simulator<S>>

    @inlinable init(_ base: UnsafePointer<Simulator<S>>) { self.base = base }

    @inlinable var virtualTime: Int64 { base.pointee.virtualTime }
    @inlinable var history: History { base.pointee.history }
    @inlinable var clientCount: Int { base.pointee.clientCount }
    @inlinable var queueCap: Int { base.pointee.queueCap }
    @inlinable var persistence: Bool { base.pointee.persistence }
    @inlinable var arbitration: Arbitration { base.pointee.arbitration }
    @inlinable func skew(of c: ClientID) -> Int64 { base.pointee.skew(of: c) }
    @inlinable func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { base.pointee.subscriptions(of: c) }
    @inlinable func shown(_ c: ClientID, _ s: SubscriptionID) -> QueryResult? { base.pointee.shown(c, s) }
    @inlinable func pendingWrites(of c: ClientID) -> [WriteID] { base.pointee.pendingWrites(of: c) }
    @inlinable func pendingWriteCount(of c: ClientID) -> Int { base.pointee.pendingWriteCount(of: c) }
    @inlinable func isOffline(_ c: ClientID) -> Bool { base.pointee.isOffline(c) }
    @inlinable func isUnreachable(_ c: ClientID) -> Bool { base.pointee.isUnreachable(c) }
    @inlinable var serverData: EntityStore { base.pointee.serverData }
    @inlinable func serverData(seenBy c: ClientID) -> EntityStore? { base.pointee.serverData(seenBy: c) }
    @inlinable var everyTenantsData: EntityStore { base.pointee.everyTenantsData }
    @inlinable func parkedWrites(of c: ClientID) -> [WriteID] { base.pointee.parkedWrites(of: c) }
}

extension History {
    /// A user change on a client: a switch of tenant (`to` set) or a logout (`to` nil), with what
    /// its write queue held either side of it.
    public struct TenantChange: Sendable {
        public var time: Int64
        public var client: ClientID
        /// The tenant before; nil if the client was logged out.
        public var from: TenantID?
        /// The tenant after; nil for a logout.
        public var to: TenantID?
        /// Writes pending on the client just before the change.
        public var pendingBefore: [WriteID]
        /// Writes pending right after it (the new tenant's queue).
        public var pendingAfter: [WriteID]
        /// Writes the change dropped with the user's local data: pending before, neither pending
        /// after nor kept under the old tenant (seed 000's user change clears the queue; seed
        /// 004's logout drops the tenant's database). The user asked for it by logging out or
        /// changing user, so `noLostAcknowledgedWrite` counts them as withdrawn, not lost.
        public var discarded: [WriteID]

        @usableFromInline
        init(time: Int64, client: ClientID, from: TenantID?, to: TenantID?, pendingBefore: [WriteID], pendingAfter: [WriteID], discarded: [WriteID]) {
            self.time = time; self.client = client; self.from = from; self.to = to
            self.pendingBefore = pendingBefore; self.pendingAfter = pendingAfter; self.discarded = discarded
        }
    }

    @usableFromInline
    mutating func recordTenantChange(_ change: TenantChange) { tenantChanges.append(change) }

    /// Whether a tenant change on `client` dropped `w` with the user's local data.
    public func discardedByTenantChange(_ w: WriteID, client: ClientID) -> TenantChange? {
        tenantChanges.first { $0.client == client && $0.discarded.contains(w) }
    }
}

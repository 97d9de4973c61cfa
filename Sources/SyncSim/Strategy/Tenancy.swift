/// How a strategy's client holds the data of several tenants (or users) on one device: who owns
/// keeping them apart. The harness always partitions the server side (one server instance per
/// tenant, a connection routed to the tenant its client was in when it opened); the client side
/// is the strategy's to declare, so the isolation oracle (`InvariantID.tenantIsolation`) judges
/// what a real engine owns.
public enum Tenancy: String, Sendable, Hashable, CaseIterable {
    /// Seed 004 §1.1 ("Each tenant → 1 separate WatermelonDB instance", "Initialize new DB
    /// instance when switching tenants"): the simulator keeps one client instance and one durable
    /// store per (client, tenant). A switch closes the current instance as a restart does (its
    /// durable state kept under its tenant) and opens the other's from its durable state; a
    /// logout drops the tenant's durable store (seed 004 §4.1 "drop entire DB per tenant if
    /// logout"). The strategy never sees a tenant.
    case databasePerTenant
    /// Seed 000 (InstantDB: one local store per app; "a user change clears" the persisted queue
    /// and cached query results): one client instance. The simulator resets its connection and
    /// hands it `UserCommand.switchTenant` / `.logout`; the strategy must clear (or partition)
    /// its cache and queue itself. A strategy that partitions rather than clears reports only the
    /// current tenant's writes in `pendingWrites` (the run settles on what can sync now); the
    /// oracles then count the others as withdrawn at the change (`History.TenantChange.discarded`),
    /// a known limit of this mode.
    case oneDatabase
}

extension SyncStrategy {
    /// Default: the simulator keeps tenants apart (a strategy that knows nothing of tenants is
    /// judged as an app that opens one database per tenant).
    public var tenancy: Tenancy { .databasePerTenant }
}

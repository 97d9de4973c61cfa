/// The invariants a run, a report or `syncsim list invariants` knows about: the built-ins, then
/// any user invariants, each with the one-line summary people read next to its id.
///
/// A value rather than a global registry: which user invariants exist is a property of the run
/// (or the fuzz session) that was given them, so two sessions in one process can judge by
/// different catalogs, and nothing depends on registration order. The oracles of the built-ins
/// live in `Monitor.swift`; a user invariant carries its own (`CustomInvariant`).
public struct InvariantCatalog: Sendable {
    /// One invariant as lists and reports show it.
    public struct Entry: Hashable, Sendable {
        public var id: InvariantID
        /// One line, shown next to the id.
        public var summary: String
        /// Longer text for a user invariant (may be empty). Built-ins keep theirs as doc comments
        /// on their `InvariantID` members, so this is empty for them.
        public var documentation: String
        public var isBuiltIn: Bool
        public var isLiveness: Bool

        public init(id: InvariantID, summary: String, documentation: String, isBuiltIn: Bool, isLiveness: Bool) {
            self.id = id
            self.summary = summary
            self.documentation = documentation
            self.isBuiltIn = isBuiltIn
            self.isLiveness = isLiveness
        }
    }

    /// Built-ins in catalog order, then user invariants by id: the order of `InvariantID`.
    public let entries: [Entry]
    /// The user invariants, by id.
    public let custom: [CustomInvariant]

    /// The built-ins plus `custom`. Throws `InvariantError.duplicateID` when two user invariants
    /// share an id (their `CustomInvariant` values already guarantee that no id is malformed or
    /// a built-in's).
    public init(custom: [CustomInvariant] = []) throws(InvariantError) {
        self.init(validated: try Self.validated(custom))
    }

    /// `sorted`: user invariants with distinct ids, in id order.
    private init(validated sorted: [CustomInvariant]) {
        custom = sorted
        entries = InvariantID.builtIns.map {
            Entry(id: $0, summary: Self.summary($0), documentation: "", isBuiltIn: true, isLiveness: $0.isLiveness)
        } + sorted.map {
            Entry(id: $0.id, summary: $0.summary, documentation: $0.documentation, isBuiltIn: false, isLiveness: false)
        }
    }

    /// The built-ins alone.
    public static let builtIns = InvariantCatalog(validated: [])

    /// The entries of the built-ins plus `custom` (see `init(custom:)`).
    public static func entries(custom: [CustomInvariant]) throws(InvariantError) -> [Entry] {
        try InvariantCatalog(custom: custom).entries
    }

    /// Every id in the catalog, in order.
    public var ids: [InvariantID] { entries.map(\.id) }

    /// The entry for `id`, or nil if this catalog does not know it.
    public func entry(_ id: InvariantID) -> Entry? { entries.first { $0.id == id } }

    /// The entry whose id is `name`, or nil: how a command line or a file names an invariant it
    /// expects to exist (a well-formed but unknown name is not an invariant).
    public func entry(named name: String) -> Entry? { entries.first { $0.id.rawValue == name } }

    /// The user invariant with this id, if the catalog has one.
    public func customInvariant(_ id: InvariantID) -> CustomInvariant? { custom.first { $0.id == id } }

    /// `custom` sorted by id, or the first problem with it.
    @usableFromInline static func validated(_ custom: [CustomInvariant]) throws(InvariantError) -> [CustomInvariant] {
        let sorted = custom.sorted { $0.id < $1.id }
        for i in sorted.indices.dropFirst() where sorted[i].id == sorted[i - 1].id {
            throw .duplicateID(sorted[i].id)
        }
        return sorted
    }

    /// A built-in's summary: what `syncsim list invariants` and reports show. For an id that is
    /// not a built-in this says so rather than inventing one; ask a catalog that holds the user
    /// invariant (`entry(_:)`) for its own summary.
    public static func summary(_ id: InvariantID) -> String {
        switch id {
        case .convergence:
            return "after heal, every subscription shows exactly the server's answer to its query, and no write is left pending (except ones the user was told were rejected)"
        case .disjointFieldMerge:
            return "concurrent edits of different fields of one entity all survive: no field or link is overwritten by a write that targeted other fields"
        case .lwwConvergence:
            return "each field and each link ends at the value of the last write in the strategy's declared arbitration order (server arrival, client timestamp, or HLC with causality), computed by the oracle"
        case .noGhostDeletion:
            return "the server deletes an entity only if a user or the server-side writer asked to delete it"
        case .noResurrection:
            return "once a deletion is applied on the server, the entity does not exist again (ids are never reused, so any reappearance is a resurrection)"
        case .typingConvergesToLastKeystroke:
            return "a typing burst that no other write raced ends at its last keystroke"
        case .noLostAcknowledgedWrite:
            return "every write a client accepted is in the end applied or reported to the user as rejected; a restart that loses queued writes is data loss"
        case .readYourWrites:
            return "right after a local write, the client's own subscriptions show it"
        case .noDuplicateApplication:
            return "a user's write takes effect on the server at most once, despite duplicates, retries and replays"
        case .queryOnceOfflineFails:
            return "queryOnce while the device is offline fails at once with the offline error and never returns a (stale) result as fresh"
        case .cachedSubscriptionOffline:
            return "with persistence on, subscribing offline to a query seen before yields the cached result at once"
        case .noReconnectWhileOffline:
            return "no connection attempt is made while the device reports it is offline"
        case .nestedSubscriptionReyields:
            return "a local change to a child entity in a subscription's result tree makes that subscription yield"
        case .queueCapNoSilentDrop:
            return "at the queue cap a new write is refused with a visible error (or accepted); nothing queued is silently dropped"
        case .toldOutcomeIsTrue:
            return "what the user is told is true: a write told rejected never takes effect on the server; a write told confirmed is in the server's log"
        case .noPhantomWrite:
            return "once the user is told a write failed, no subscription of that client still shows its effect"
        case .neverRevertOwnWrite:
            return "until a write's outcome is known, every yield of its client shows that write or one that may follow it (refreshes, reconnects, relaunches)"
        case .clientWriteOrder:
            return "the server applies one client's writes in the order its user made them, and never refuses one because of reordering"
        case .monotonicReads:
            return "a client's view of a field it did not write never goes back to a value older, in the server's order, than one it showed"
        case .timelyFeedback:
            return "after heal, every write that took effect or was refused reaches an outcome the user sees within a bound"
        case .linkIntegrity:
            return "no link on the server targets an entity the server does not have (deleted or never created)"
        case .noRequestWhileOffline:
            return "no message is sent while the device reports it is offline"
        case .liveness:
            return "after heal the run settles (nothing in flight, nothing pending, views equal to the server) within the virtual-time and event bounds"
        case .noDuplicateRows:
            return "at most one server row per entity: a create retried after a lost answer never becomes a second row (server row ids from the log)"
        case .tenantIsolation:
            return "no data or pending write crosses tenants: a tenant's server applies only its tenant's writes, a client shows only its tenant's entities and values"
        default:
            return "user invariant '\(id.rawValue)' (not a built-in; its summary comes with its definition)"
        }
    }
}

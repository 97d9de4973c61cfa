/// The name of an invariant: one of the built-ins below, or a user invariant's own id.
///
/// Raw values appear in reports, scenario files, JSON and on the command line; never rename a
/// built-in. The type is an open struct rather than a closed enum so that users' invariants are
/// peers of the built-ins: a violation, a strategy's contract (`StrategyInfo.contract`), a report
/// row and a shrink target all name an invariant the same way, whoever defined it.
///
/// **Well-formed ids.** Non-empty, at most `maxLength` characters, ASCII letters, digits and
/// `_-.` only — so an id is safe as a file-name fragment, a JUnit test name, a CLI argument and a
/// JSON string without escaping, and two ids that look alike are equal byte for byte (no Unicode
/// normalisation questions). `init?(rawValue:)` and decoding accept any well-formed id, built-in
/// or not; `init(custom:)` additionally refuses a built-in's name, because a user invariant must
/// never be able to shadow (and so forge or silence) a built-in.
///
/// **Order.** Built-ins first, in catalog order (the order of `builtIns`, which reports and
/// `list invariants` follow), then every other id by raw value (byte order, since ids are ASCII).
/// Total and independent of hashing, so sorted violations and tables are deterministic.
///
/// Every built-in is a **safety** property (violated at a point in time, checked during the run
/// or at its end) except `liveness`. Oracles of built-ins live in `Monitor.swift`; user
/// invariants carry their own (`CustomInvariant`).
public struct InvariantID: RawRepresentable, Hashable, Sendable, Comparable, CustomStringConvertible {
    public let rawValue: String
    /// Position in `builtIns`, or `Int.max` for any other id. Derived from `rawValue` (never
    /// independent of it), kept so that `<` costs no search.
    let rank: Int

    /// The longest id accepted: long enough for a descriptive camelCase name, short enough for a
    /// report column and a file name.
    public static let maxLength = 64

    /// A well-formed id (built-in or not); nil if `rawValue` is malformed (see the type's doc).
    /// For the built-ins this returns the very same values as the static members, so
    /// `InvariantID(rawValue: "convergence") == .convergence`.
    ///
    /// Callers that must accept only names they know (a scenario file's expectation, a CLI
    /// `--invariant`) should look the id up in an `InvariantCatalog` (or use
    /// `init?(builtIn:)`): a well-formed id is not necessarily an invariant anyone defined.
    public init?(rawValue: String) {
        if let i = Self.builtInRank(rawValue) {
            self.init(trusted: rawValue, rank: i)
        } else if Self.syntaxError(rawValue) == nil {
            self.init(trusted: rawValue, rank: .max)
        } else {
            return nil
        }
    }

    /// One of the built-ins by raw value; nil for any other string (well-formed or not).
    public init?(builtIn rawValue: String) {
        guard let i = Self.builtInRank(rawValue) else { return nil }
        self.init(trusted: rawValue, rank: i)
    }

    /// A user invariant's id. Throws (never traps) when `rawValue` is malformed or is a
    /// built-in's name: a user invariant cannot shadow a built-in.
    public init(custom rawValue: String) throws(InvariantError) {
        if let e = Self.customError(rawValue) { throw e }
        self.init(trusted: rawValue, rank: .max)
    }

    private init(trusted rawValue: String, rank: Int) {
        self.rawValue = rawValue
        self.rank = rank
    }

    /// Whether this is one of the built-ins (`builtIns`).
    public var isBuiltIn: Bool { rank != .max }

    /// Safety invariants can be violated at a point in time; liveness ones only by running out
    /// of time or events. Only the built-in `liveness` is a liveness property: user invariants
    /// are judged once, at the end of a run, and report as safety.
    public var isLiveness: Bool { self == .liveness }

    public var description: String { rawValue }

    public static func == (a: InvariantID, b: InvariantID) -> Bool { a.rawValue == b.rawValue }
    public func hash(into h: inout Hasher) { h.combine(rawValue) }

    public static func < (a: InvariantID, b: InvariantID) -> Bool {
        if a.rank != b.rank { return a.rank < b.rank }
        return a.rawValue.utf8.lexicographicallyPrecedes(b.rawValue.utf8)
    }

    // MARK: - Validation

    /// Why `rawValue` is not a well-formed id (nil: it is). Built-in names are well-formed.
    public static func syntaxError(_ rawValue: String) -> InvariantError? {
        if rawValue.isEmpty { return .emptyID }
        if let bad = rawValue.first(where: { !isAllowed($0) }) { return .invalidCharacter(id: rawValue, bad) }
        // Every character is one ASCII byte here, so the byte count is the character count.
        let n = rawValue.utf8.count
        if n > maxLength { return .idTooLong(id: rawValue, length: n) }
        return nil
    }

    /// Why `rawValue` cannot name a user invariant (nil: it can).
    public static func customError(_ rawValue: String) -> InvariantError? {
        if let e = syntaxError(rawValue) { return e }
        if builtInRank(rawValue) != nil { return .shadowsBuiltIn(rawValue) }
        return nil
    }

    static func isAllowed(_ c: Character) -> Bool {
        guard c.isASCII, let a = c.asciiValue else { return false }
        switch a {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    static func builtInRank(_ rawValue: String) -> Int? { builtInRanks[rawValue] }

    /// Raw value → position in `builtIns`; only ever looked up, never iterated.
    private static let builtInRanks: [String: Int] = {
        var d: [String: Int] = [:]
        for (i, id) in builtIns.enumerated() { d[id.rawValue] = i }
        return d
    }()

    // MARK: - The built-ins, in catalog order

    /// After the heal phase, every client's view of every subscribed query equals the server's
    /// answer to that query, evaluated by the oracle on the server's data, and no client holds a
    /// pending write the user was not told failed. Checked at the end of the run.
    public static let convergence = InvariantID(trusted: "convergence", rank: 0)
    /// Concurrent edits of different fields of one entity all survive: a field's final value is
    /// never the work of a transaction whose user intents targeted *other* fields (a full-entity
    /// snapshot re-writing a stale value), unless a later write to the same field or a delete
    /// superseded it. Links too: a link's final target is never the work of a transaction that
    /// did not target that link (a whole-entity save re-asserting a stale link). Computed from
    /// the users' intents and the server's transaction log.
    public static let disjointFieldMerge = InvariantID(trusted: "disjointFieldMerge", rank: 1)
    /// For each (entity, field) and each link register — a cardinality-one link of an entity,
    /// or one (entity, has-many link, target) — the final value is the value of the last write
    /// in the strategy's declared arbitration order — server arrival (the last applied
    /// transaction), client timestamp (the latest device clock) or hybrid logical clock (no write
    /// made causally after the winner — by the same writer, after its writer was shown a server
    /// version at or after the winner's transaction, or an admin write made once the server had
    /// applied it — and none made so much later that its clock must exceed the winner's, may
    /// lose) — computed by the oracle from the intents and the server's log. An unlink clears a
    /// link only if it still names the target, so an empty link is also accepted when an unlink
    /// may win, or when the entity or the winner's target was deleted on the server. Under
    /// record timestamps (`.recordTimestamp`, WatermelonDB rows) the register is the record: the
    /// newest-stamped row wins whole (admin writes and keep-local pushes apply over any stamp),
    /// and each field or link its writer set holds that writer's value (`Monitor+RecordOrder`).
    public static let lwwConvergence = InvariantID(trusted: "lwwConvergence", rank: 2)
    /// The server deletes an entity only if a user or the server-side writer asked to delete it,
    /// in that very transaction: a delete in the transaction log is a ghost deletion unless one
    /// of the writes the transaction carries is an intent to delete that entity (an earlier
    /// request to delete it does not excuse a later transaction's delete).
    public static let noGhostDeletion = InvariantID(trusted: "noGhostDeletion", rank: 3)
    /// Once a deletion has been applied on the server, the entity does not exist there again.
    /// Entity ids are never reused, so any reappearance (an upsert, a stale re-send) is a
    /// resurrection.
    public static let noResurrection = InvariantID(trusted: "noResurrection", rank: 4)
    /// A typing burst (keystroke-prefix updates of one text field) that no other write raced —
    /// none made during or after it, none applied after it began to land, none stamped later
    /// under a timestamp order — and whose last keystroke took effect ends at the last keystroke.
    public static let typingConvergesToLastKeystroke = InvariantID(trusted: "typingConvergesToLastKeystroke", rank: 5)
    /// Every write a client accepted is, in the end, applied on the server or reported to the
    /// user as rejected. A restart that drops queued writes (persistence off, or a volatile
    /// queue) is the data loss it is.
    public static let noLostAcknowledgedWrite = InvariantID(trusted: "noLostAcknowledgedWrite", rank: 6)
    /// Right after a local write, every subscription of that client that has yielded shows it
    /// (created entities that match the query appear, updated fields have their new values,
    /// deleted roots disappear).
    public static let readYourWrites = InvariantID(trusted: "readYourWrites", rank: 7)
    /// A user's write takes effect on the server at most once, despite duplicated messages,
    /// retries and replays: no write id appears in two applied transactions.
    public static let noDuplicateApplication = InvariantID(trusted: "noDuplicateApplication", rank: 8)
    /// `queryOnce` while the device is offline fails at once with the dedicated offline error
    /// and never returns a possibly stale result as if it were fresh (seed 000 §4.1).
    public static let queryOnceOfflineFails = InvariantID(trusted: "queryOnceOfflineFails", rank: 9)
    /// With persistence on, subscribing while offline to a query the client has seen a server
    /// result for yields the cached result at once (seed 000 §4.1), also when the app relaunches
    /// offline; the yield shows a result, keeps the roots the cached result had (unless deleted
    /// or moved out of a filter meanwhile), and shows only values the server held or the client
    /// wrote (`Monitor+Audits.swift`).
    public static let cachedSubscriptionOffline = InvariantID(trusted: "cachedSubscriptionOffline", rank: 10)
    /// No connection attempt is made while the device reports it is offline (seed 000 §2.1).
    public static let noReconnectWhileOffline = InvariantID(trusted: "noReconnectWhileOffline", rank: 11)
    /// A local change to a child entity in a subscription's result tree (a post under
    /// `profiles with posts`) makes that subscription yield (seed 000 §3.5).
    public static let nestedSubscriptionReyields = InvariantID(trusted: "nestedSubscriptionReyields", rank: 12)
    /// At the queue cap a new write is either refused with a user-visible error or accepted;
    /// nothing already queued disappears without being applied or reported (seed 003).
    public static let queueCapNoSilentDrop = InvariantID(trusted: "queueCapNoSilentDrop", rank: 13)
    /// What the user is told is true. A write the user was told was rejected (`writeRejected`)
    /// never appears in the server's transaction log, before or after the telling (no "limbo":
    /// an error shown for a mutation that was committed); a write the user was told was
    /// confirmed (`writeConfirmed`) is already in the server's log when the user is told.
    /// Judged from what users were told and the server's log.
    public static let toldOutcomeIsTrue = InvariantID(trusted: "toldOutcomeIsTrue", rank: 14)
    /// Once a user is told a write failed, none of that client's subscriptions still shows its
    /// effect once the client has handled the input that told it: no field shows the value the
    /// failed write set, and no entity it created appears, unless something else explains it —
    /// the server's data held that value (or entity) at some point, or another write of the same
    /// client that was not rejected sets it. (A rejected delete that keeps hiding its entity is
    /// not judged: a filter may hide it too.)
    public static let noPhantomWrite = InvariantID(trusted: "noPhantomWrite", rank: 15)
    /// From a local write until its outcome is known (the user is told it was rejected or
    /// confirmed, or it leaves the client's pending writes), every yield of the writing client
    /// whose result holds a field the write set shows the write's value or the value of a write
    /// that may legitimately follow it: one made later, one the server applied after it, or one
    /// the declared arbitration may rank above it (a later or equal client timestamp; under HLC
    /// one made late enough that its clock may exceed the write's). Covers server refreshes
    /// arriving before the ack, reconnects and relaunches (with persistence on, the first yield
    /// after a relaunch already shows pending writes). Links are not judged here.
    public static let neverRevertOwnWrite = InvariantID(trusted: "neverRevertOwnWrite", rank: 16)
    /// Session order: the server applies one client's writes in the order its user made them
    /// (the first application of each write; writes coalesced into one transaction tie), and
    /// never refuses a write in a way only reordering explains: a later write of the same client
    /// applied before the refusal, or an earlier write of the same client that creates an entity
    /// the refused write touches applied only after it.
    public static let clientWriteOrder = InvariantID(trusted: "clientWriteOrder", rank: 17)
    /// Monotonic reads: for every (entity, field) the client never wrote itself, once a client
    /// showed a value, none of its later yields shows a value that only versions older (in the
    /// order the server's data took its values, the initial data first) than every version of
    /// the value already shown could explain. Per client, across subscriptions and relaunches.
    public static let monotonicReads = InvariantID(trusted: "monotonicReads", rank: 18)
    /// After heal, every write a client accepted that took effect or was refused reaches an
    /// outcome the user sees — told rejected, told confirmed, or the client's pending queue
    /// empties after it — within `Monitor.feedbackBoundMs` of virtual time (counted from heal,
    /// or from the write if later). A write that waits silently on a long timer is not
    /// "settled" in time. Writes lost altogether are `noLostAcknowledgedWrite`'s story.
    public static let timelyFeedback = InvariantID(trusted: "timelyFeedback", rank: 19)
    /// Referential integrity: at the end of the run no link on the server targets an entity the
    /// server does not have (a deleted one, or one never created). A strategy that allows
    /// dangling links does not claim it.
    public static let linkIntegrity = InvariantID(trusted: "linkIntegrity", rank: 20)
    /// No message is sent by a client while its device reports it is offline (the datagram
    /// counterpart of `noReconnectWhileOffline`; seed 000 §2.1).
    public static let noRequestWhileOffline = InvariantID(trusted: "noRequestWhileOffline", rank: 21)
    /// At most one server row per entity: from the server's log (`AppliedTransaction.rows`, the
    /// rows it inserted with the ids it gave them), no entity gets a second row id — a create
    /// retried after a lost answer is the same row, not a duplicate (seed 004's testing matrix,
    /// "no duplicates"). Servers that report no row ids cannot violate it
    /// (`Monitor+Rows.swift`).
    public static let noDuplicateRows = InvariantID(trusted: "noDuplicateRows", rank: 22)
    /// No data or pending write crosses tenants (seed 004 §1.1 "complete separation - no
    /// cross-tenant data access" and its testing matrix's "2 tenants A + B sync separately"; a
    /// user change of seed 000 counts as a switch of tenant). Judged from the history: each
    /// intent belongs to the tenant its client was in when the user made it (admin writes and the
    /// initial data to tenant 0); a tenant's server applies only writes made in that tenant and
    /// touches only entities that tenant's intents (or initial data) touched; a client in tenant
    /// T never shows an entity no intent of T touched, nor a value that only other tenants'
    /// writes wrote; a logged-out client shows nothing. Entity ids are unique across tenants, so
    /// provenance is known from the intents. Judged only in runs with tenant actions.
    public static let tenantIsolation = InvariantID(trusted: "tenantIsolation", rank: 23)
    /// After heal the run settles — nothing in flight, nothing pending, no open prompt, every
    /// subscription equal to the server's answer — within the virtual-time and event bounds.
    /// The only liveness property: violated by running out of time or events, never a hang.
    public static let liveness = InvariantID(trusted: "liveness", rank: 24)

    /// The built-in invariants in catalog order: the order of reports, `list invariants` and
    /// sorting. Each element's position is its `rank` (a test checks they agree).
    public static let builtIns: [InvariantID] = [
        .convergence, .disjointFieldMerge, .lwwConvergence, .noGhostDeletion, .noResurrection,
        .typingConvergesToLastKeystroke, .noLostAcknowledgedWrite, .readYourWrites, .noDuplicateApplication,
        .queryOnceOfflineFails, .cachedSubscriptionOffline, .noReconnectWhileOffline,
        .nestedSubscriptionReyields, .queueCapNoSilentDrop, .toldOutcomeIsTrue, .noPhantomWrite,
        .neverRevertOwnWrite, .clientWriteOrder, .monotonicReads, .timelyFeedback, .linkIntegrity,
        .noRequestWhileOffline, .noDuplicateRows, .tenantIsolation, .liveness,
    ]

    /// The built-ins (`builtIns`), kept under the name callers used when `InvariantID` was a
    /// closed enum. It never includes user invariants: those belong to a run or a catalog
    /// (`InvariantCatalog(custom:)`), not to the type.
    public static var allCases: [InvariantID] { builtIns }
}

extension InvariantID: Codable {
    /// A plain JSON string (the raw value), as when this was a `String` enum: files written before
    /// user invariants existed decode unchanged.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let id = InvariantID(rawValue: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "invalid invariant id: \(Self.syntaxError(s).map(\.description) ?? s)")
        }
        self = id
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}

/// Why an invariant id or a user invariant's definition was refused. A value, never a trap:
/// user input (a plug-in's definition, a JSON file, a command line) must not crash the harness.
public enum InvariantError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The id is the empty string.
    case emptyID
    /// The id has a character outside ASCII letters, digits and `_-.`.
    case invalidCharacter(id: String, Character)
    /// The id is longer than `InvariantID.maxLength` characters.
    case idTooLong(id: String, length: Int)
    /// A user invariant tried to take a built-in's name.
    case shadowsBuiltIn(String)
    /// Two user invariants given to one run or catalog share an id.
    case duplicateID(InvariantID)
    /// A user invariant's summary is empty or blank.
    case emptySummary(InvariantID)
    /// A user invariant's summary spans several lines (it is shown in one table cell).
    case multiLineSummary(InvariantID)

    public var description: String {
        switch self {
        case .emptyID:
            return "an invariant id must not be empty"
        case .invalidCharacter(let id, let c):
            let shown = c.unicodeScalars.map { $0.isASCII && $0.value >= 0x20 && $0.value < 0x7F ? String($0) : "U+" + String($0.value, radix: 16, uppercase: true) }.joined()
            return "invariant id '\(id)' contains '\(shown)'; ids use ASCII letters, digits, '_', '-' and '.' only"
        case .idTooLong(let id, let n):
            return "invariant id '\(id.prefix(InvariantID.maxLength))…' is \(n) characters long; the limit is \(InvariantID.maxLength)"
        case .shadowsBuiltIn(let id):
            return "'\(id)' is a built-in invariant; a user invariant needs a name of its own"
        case .duplicateID(let id):
            return "two user invariants are named '\(id)'"
        case .emptySummary(let id):
            return "user invariant '\(id)' has an empty summary"
        case .multiLineSummary(let id):
            return "user invariant '\(id)' has a summary of several lines; it must be one line (put the rest in its documentation)"
        }
    }
}

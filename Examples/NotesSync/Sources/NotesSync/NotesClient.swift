import SyncSim

/// The notes app's sync client: a durable outbox of user writes, pushed over one connection and
/// removed when the server acknowledges them; subscriptions show the server's answer with the
/// outbox laid over it (optimistic UI).
///
/// | event | what the client does |
/// |---|---|
/// | device online, not connected | connect |
/// | device offline | the connection is gone (nothing is sent while offline) |
/// | connected | re-subscribe every open subscription, push the whole outbox in order |
/// | connection lost | retry after `reconnectMs` while the device is online |
/// | user write | append to the outbox, persist, push if connected (with an ack timer) |
/// | ack / reject | drop from the outbox, persist, tell the user |
/// | ack timer fires | `retry`: push again; otherwise (the planted bug) forget the write |
///
/// The outbox is always persisted (it is the app's own table, not a cache), so a restart keeps it.
public struct NotesClient: ClientMachine {
    public typealias Up = NotesUp
    public typealias Down = NotesDown
    public typealias Durable = [UserWrite]

    struct Subscription {
        var id: SubscriptionID
        var query: Query
        var server: QueryResult?
        var shown: QueryResult?
    }

    let schema: Schema
    /// false is the planted bug of `notesLWWNoRetry`: a write whose ack times out is dropped from
    /// the outbox without telling the user, while the UI keeps showing it.
    let retry: Bool
    static let ackTimeoutMs: Int64 = 4_000
    static let reconnectMs: Int64 = 1_000
    static let reconnectTimer = TimerID(0xFFFF_0000)
    static func ackTimer(_ w: WriteID) -> TimerID { TimerID(w.raw & 0x7FFF_FFFF) }

    var online = false
    var connection: Connection = .closed
    enum Connection { case closed, connecting, open }
    var outbox: [UserWrite]
    /// Writes the bug dropped: never sent again, still shown.
    var orphans: [UserWrite] = []
    var subscriptions: [Subscription] = []

    public init(context: ClientContext, retry: Bool, restoring durable: [UserWrite]?) {
        schema = context.schema
        self.retry = retry
        outbox = durable ?? []
    }

    public var durableState: [UserWrite] { outbox }
    public var pendingWrites: [WriteID] { outbox.map(\.id) }
    public func result(of subscription: SubscriptionID) -> QueryResult? {
        subscriptions.first { $0.id == subscription }?.shown
    }

    public mutating func handle(_ input: ClientInput<NotesDown>, now: Int64, out: inout ClientOutbox<NotesUp>) {
        switch input {
        case .network(.online):
            online = true
            connectIfNeeded(&out)
        case .network(.offline):
            // The OS says the network is gone: so is the connection, whether or not the socket
            // has noticed yet (nothing may be sent while offline).
            online = false
            connection = .closed
        case .connected:
            connection = .open
            for s in subscriptions { out(.send(.subscribe(s.id, s.query))) }
            for w in outbox { push(w, &out) }
        case .disconnected:
            connection = .closed
            if online { out(.setTimer(Self.reconnectTimer, afterMs: Self.reconnectMs)) }
        case .timerFired(let t) where t == Self.reconnectTimer:
            connectIfNeeded(&out)
        case .timerFired(let t):
            guard let i = outbox.firstIndex(where: { Self.ackTimer($0.id) == t }) else { return }
            if retry {
                if connection == .open { push(outbox[i], &out) }
            } else {
                orphans.append(outbox.remove(at: i))
                out(.persist)
            }
        case .user(.write(let w)):
            outbox.append(w)
            out(.persist)
            if connection == .open { push(w, &out) }
            refreshViews(&out)
        case .user(.subscribe(let s, let q)):
            subscriptions.append(Subscription(id: s, query: q))
            if connection == .open { out(.send(.subscribe(s, q))) }
        case .user(.unsubscribe(let s)):
            subscriptions.removeAll { $0.id == s }
            if connection == .open { out(.send(.unsubscribe(s))) }
        case .user(.queryOnce(let r, let q)):
            if connection == .open { out(.send(.query(r, q))) } else { out(.event(.queryOnceFailed(r, offline: !online, hasStaleResult: false))) }
        case .user(.resolveConflict), .user(.forceSync), .user(.dropOldestWrite), .user(.syncNow):
            break  // last-writer-wins never asks the user
        case .user(.switchTenant), .user(.logout):
            break  // never sent: NotesStrategy keeps the default `Tenancy.databasePerTenant`
        case .received(.result(let s, let r)):
            guard let i = subscriptions.firstIndex(where: { $0.id == s }) else { return }
            subscriptions[i].server = r
            refreshViews(&out)
        case .received(.ack(let w)):
            settle(w, &out)
            out(.event(.writeConfirmed(w)))
        case .received(.reject(let w, let why)):
            guard outbox.contains(where: { $0.id == w }) else { return }
            settle(w, &out)
            out(.event(.writeRejected(w, .serverError(why))))
        case .received(.queryResult(let r, _)):
            out(.event(.queryOnceResult(r)))
        }
    }

    mutating func connectIfNeeded(_ out: inout ClientOutbox<NotesUp>) {
        guard online, connection == .closed else { return }
        connection = .connecting
        out(.connect)
    }

    mutating func push(_ w: UserWrite, _ out: inout ClientOutbox<NotesUp>) {
        out(.send(.push(w.id, w.ops)))
        out(.setTimer(Self.ackTimer(w.id), afterMs: Self.ackTimeoutMs))
    }

    mutating func settle(_ w: WriteID, _ out: inout ClientOutbox<NotesUp>) {
        out(.cancelTimer(Self.ackTimer(w)))
        if let i = outbox.firstIndex(where: { $0.id == w }) {
            outbox.remove(at: i)
            out(.persist)
        }
        refreshViews(&out)
    }

    /// Each subscription shows the server's answer with the outbox (and, under the bug, the
    /// orphans) applied over it, through its query; it yields when that changes.
    mutating func refreshViews(_ out: inout ClientOutbox<NotesUp>) {
        for i in subscriptions.indices {
            guard let base = subscriptions[i].server else { continue }
            var view = base
            if !outbox.isEmpty || !orphans.isEmpty {
                var store = EntityStore(entriesOf: base)
                for w in orphans + outbox { for op in w.ops { _ = store.apply(op, schema: schema, mode: .update) } }
                view = subscriptions[i].query.evaluate(store)
            }
            if view != subscriptions[i].shown {
                subscriptions[i].shown = view
                out(.event(.subscriptionYielded(subscriptions[i].id, fromCache: false)))
            }
        }
    }
}

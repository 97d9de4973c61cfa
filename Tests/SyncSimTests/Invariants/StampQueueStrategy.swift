import SyncSim

/// A tiny last-writer-wins store through public API, for the link and causality oracles' tests:
/// each write is sent with the writer's clock (`now`, skew included, raised above every stamp
/// the client observed) as its stamp; the server keeps a stamp per field and per
/// cardinality-one link and takes an assignment only if its stamp is not older, and sends every
/// client its whole data (and its clock) after each change; subscriptions show that replica with
/// the client's pending writes laid over it. Claims every invariant under `hybridLogicalClock`
/// arbitration. Knobs plant bugs.
struct StampQueueStrategy: SyncStrategy {
    /// Clocks observe every stamp they receive (a real HLC): the server's clock observes client
    /// stamps and stamps admin writes above them; a client's clock observes the server's. Off:
    /// bare clocks, so an edit made after seeing another can lose to it on a slow device (or an
    /// admin edit, to a write from a fast one).
    var causal = true
    /// Links ignore stamps: the link that arrives last wins (a replayed old link beats a newer one).
    var linksByArrival = false
    /// Each write also re-asserts the entity's links as the client last saw them (a whole-entity
    /// save: the client's stale copy of a link overwrites a newer one it never targeted).
    var saveWholeEntity = false

    var info: StrategyInfo {
        StrategyInfo(name: "stampQueue", summary: "test LWW store", contract: Set(InvariantID.allCases), arbitration: .hybridLogicalClock)
    }
    var transport: Transport { .datagram }

    func makeClient(_ context: ClientContext, restoring durable: [StampQueueMessage.Stamped]?) -> StampQueueClient {
        StampQueueClient(schema: context.schema, queue: durable ?? [], whole: saveWholeEntity, causal: causal)
    }

    func makeServer(_ context: ServerContext) -> StampQueueServer {
        StampQueueServer(schema: context.schema, clients: context.clientCount, causal: causal, linksByArrival: linksByArrival)
    }
}

enum StampQueueMessage: WireMessage {
    struct Stamped: Hashable, Sendable {
        var write: UserWrite
        var stamp: Int64
        /// Links re-asserted by a whole-entity save (not part of the user's write).
        var extra: [Op] = []
    }
    case write(Stamped)
    case ack(WriteID, links: [EntityID?])
    /// The server's whole data and its clock.
    case data(EntityStore, clock: Int64)
    /// A client asking for the data.
    case hello
    var kind: String {
        switch self {
        case .write: return "write"
        case .ack: return "ack"
        case .data: return "data"
        case .hello: return "hello"
        }
    }
    var description: String {
        switch self {
        case .write(let s): return "write \(s.write.id) @\(s.stamp)"
        case .ack(let w, _): return "ack \(w)"
        case .data(_, let c): return "data @\(c)"
        case .hello: return "hello"
        }
    }
    var carriedWrites: [WriteID] { if case .write(let s) = self { return [s.write.id] } else { return [] } }
    func stableHash(into h: inout StableHasher) {
        switch self {
        case .write(let s): h.byte(1); s.write.stableHash(into: &h); h.combine(s.stamp); for o in s.extra { o.stableHash(into: &h) }
        case .ack(let w, _): h.byte(2); h.combine(w.raw)
        case .data(let d, let c): h.byte(3); d.stableHash(into: &h); h.combine(c)
        case .hello: h.byte(4)
        }
    }
}

struct StampQueueClient: ClientMachine {
    typealias Up = StampQueueMessage
    typealias Down = StampQueueMessage
    let schema: Schema
    var queue: [StampQueueMessage.Stamped]
    let whole: Bool
    let causal: Bool
    var online = false
    /// The post#3 author link as this client last heard it from the server (whole-entity saves).
    var seenAuthor: EntityID?
    var replica: EntityStore?
    var observed: Int64 = .min
    var subscriptions: [(SubscriptionID, Query)] = []

    var durableState: [StampQueueMessage.Stamped] { queue }
    func result(of subscription: SubscriptionID) -> QueryResult? {
        guard var view = replica, let q = subscriptions.first(where: { $0.0 == subscription })?.1 else { return nil }
        for s in queue { for op in s.write.ops { _ = view.apply(op, schema: schema) } }
        return q.evaluate(view)
    }
    var pendingWrites: [WriteID] { queue.map(\.write.id) }

    func yieldAll(_ out: inout ClientOutbox<StampQueueMessage>) {
        guard replica != nil else { return }
        for (s, _) in subscriptions { out(.event(.subscriptionYielded(s, fromCache: false))) }
    }

    mutating func handle(_ input: ClientInput<StampQueueMessage>, now: Int64, out: inout ClientOutbox<StampQueueMessage>) {
        switch input {
        case .user(.write(let w)):
            var s = StampQueueMessage.Stamped(write: w, stamp: causal ? max(now, observed &+ 1) : now)
            if causal { observed = s.stamp }
            if whole, let a = seenAuthor, !w.ops.contains(where: { if case .link = $0 { return true } else { return false } }) {
                s.extra = [.link(EntityID(3), LinkID(0), a)]
            }
            queue.append(s)
            out(.persist)
            if online { out(.send(.write(s))) }
            yieldAll(&out)
        case .user(.subscribe(let s, let q)):
            subscriptions.append((s, q))
            if replica != nil { out(.event(.subscriptionYielded(s, fromCache: false))) }
        case .user(.unsubscribe(let s)):
            subscriptions.removeAll { $0.0 == s }
        case .received(.data(let d, let clock)):
            replica = d
            if causal { observed = max(observed, clock) }
            yieldAll(&out)
        case .received(.ack(let w, let links)):
            queue.removeAll { $0.write.id == w }
            if let a = links.first { seenAuthor = a }
            out(.persist)
            out(.event(.writeConfirmed(w)))
            yieldAll(&out)
        case .network(let n):
            online = n == .online
            if online { out(.send(.hello)); for s in queue { out(.send(.write(s))) } }
        default:
            break
        }
    }
}

struct StampQueueServer: ServerMachine {
    typealias Up = StampQueueMessage
    typealias Down = StampQueueMessage
    let schema: Schema
    let clients: Int
    let causal: Bool
    let linksByArrival: Bool
    var data = EntityStore()
    var stamps: [UInt64: Int64] = [:]
    var clock: Int64 = .min
    var seen = Set<WriteID>()
    var tx: UInt64 = 0

    func broadcast(_ out: inout ServerOutbox<StampQueueMessage>) {
        for i in 0..<clients { out(.send(ClientID(i), .data(data, clock: clock))) }
    }

    func key(_ e: EntityID, _ slot: UInt8, link: Bool) -> UInt64 { UInt64(e.raw) << 9 | (link ? 256 : 0) | UInt64(slot) }

    mutating func apply(_ ops: [Op], stamp: Int64) {
        for op in ops {
            switch op {
            case .create(let e, let ns, let a), .update(let e, let ns, let a):
                if !data.contains(e) { _ = data.apply(.create(e, ns, []), schema: schema) }
                for x in a where stamp >= stamps[key(e, x.field.raw, link: false)] ?? .min {
                    stamps[key(e, x.field.raw, link: false)] = stamp
                    _ = data.apply(.update(e, ns, [x]), schema: schema)
                }
            case .link(let e, let l, _), .unlink(let e, let l, _):
                if linksByArrival || stamp >= stamps[key(e, l.raw, link: true)] ?? .min {
                    stamps[key(e, l.raw, link: true)] = stamp
                    _ = data.apply(op, schema: schema)
                }
            case .delete:
                _ = data.apply(op, schema: schema)
            }
        }
    }

    mutating func handle(_ input: ServerInput<StampQueueMessage>, now: Int64, out: inout ServerOutbox<StampQueueMessage>) {
        switch input {
        case .received(let c, .write(let s)):
            if seen.insert(s.write.id).inserted {
                if causal { clock = max(clock, s.stamp) }
                apply(s.write.ops + s.extra, stamp: s.stamp)
                tx += 1
                out(.applied(AppliedTransaction(txID: tx, origin: .client(c), writes: [s.write.id], ops: s.write.ops + s.extra)))
            }
            broadcast(&out)
            out(.send(c, .ack(s.write.id, links: [data[EntityID(3)]?[LinkID(0)]])))
        case .received(let c, _):
            out(.send(c, .data(data, clock: clock)))
        case .adminWrite(let w):
            let stamp = causal ? max(now, clock + 1) : now
            clock = max(clock, stamp)
            apply(w.ops, stamp: stamp)
            if w.id.raw != UInt32.max {
                tx += 1
                out(.applied(AppliedTransaction(txID: tx, origin: .admin, writes: [w.id], ops: w.ops)))
            }
            broadcast(&out)
        default:
            break
        }
    }
}

import SyncSim

/// A deliberately tiny strategy, built through public API only (as a user would), to test the
/// simulator itself: each write is one datagram (or stream message) to the server, which logs it.
/// Knobs let tests break it on purpose (never confirm, forget on restart, …).
struct ProbeStrategy: SyncStrategy {
    var transport: Transport = .datagram
    /// Keep writes pending forever (a strategy that never settles).
    var neverSettle = false

    var info: StrategyInfo {
        StrategyInfo(name: "probe", summary: "test probe", contract: [], arbitration: .serverArrival)
    }

    func makeClient(_ context: ClientContext, restoring durable: Int?) -> ProbeClient {
        ProbeClient(durableCount: durable ?? 0, neverSettle: neverSettle)
    }

    func makeServer(_ context: ServerContext) -> ProbeServer { ProbeServer() }
}

enum ProbeMessage: WireMessage {
    case write(WriteID, [Op])
    case ack(WriteID)
    var kind: String { if case .write = self { return "write" } else { return "ack" } }
    var description: String {
        switch self {
        case .write(let w, let ops): return "write \(w) \(ops)"
        case .ack(let w): return "ack \(w)"
        }
    }
    var carriedWrites: [WriteID] { if case .write(let w, _) = self { return [w] } else { return [] } }
    func stableHash(into h: inout StableHasher) {
        switch self {
        case .write(let w, let ops): h.byte(1); h.combine(w.raw); for o in ops { o.stableHash(into: &h) }
        case .ack(let w): h.byte(2); h.combine(w.raw)
        }
    }
}

struct ProbeClient: ClientMachine {
    typealias Up = ProbeMessage
    typealias Down = ProbeMessage
    /// Survives restarts (persisted on every write).
    var durableCount: Int
    /// Lost on restart.
    var volatileCount = 0
    var neverSettle: Bool
    var pending: [WriteID] = []
    var connected = false
    var received: [WriteID] = []

    var durableState: Int { durableCount }
    func result(of subscription: SubscriptionID) -> QueryResult? { nil }
    var pendingWrites: [WriteID] { pending }

    mutating func handle(_ input: ClientInput<ProbeMessage>, now: Int64, out: inout ClientOutbox<ProbeMessage>) {
        switch input {
        case .user(.write(let w)):
            durableCount += 1
            volatileCount += 1
            pending.append(w.id)
            out(.persist)
            out(.send(.write(w.id, w.ops)))
        case .received(.ack(let w)):
            received.append(w)
            if !neverSettle { pending.removeAll { $0 == w } }
        case .network(.online):
            out(.connect)
        case .connected:
            connected = true
        case .disconnected:
            connected = false
        default:
            break
        }
    }
}

struct ProbeServer: ServerMachine {
    typealias Up = ProbeMessage
    typealias Down = ProbeMessage
    var data = EntityStore()
    var log: [WriteID] = []
    var tx: UInt64 = 0

    mutating func handle(_ input: ServerInput<ProbeMessage>, now: Int64, out: inout ServerOutbox<ProbeMessage>) {
        switch input {
        case .received(let c, .write(let w, let ops)):
            log.append(w)
            for op in ops { _ = data.apply(op, schema: .default) }
            tx += 1
            out(.applied(AppliedTransaction(txID: tx, origin: .client(c), writes: [w], ops: ops)))
            out(.send(c, .ack(w)))
        case .adminWrite(let w):
            for op in w.ops { _ = data.apply(op, schema: .default) }
        default:
            break
        }
    }
}

import SyncSim

/// `instant` with one deliberate bug in what its client shows or tells, built through public API
/// only (as a user could), for the view and session oracles' failing tests. Claims every invariant.
struct ViewBugInstant: SyncStrategy {
    enum Break: Hashable, Sendable {
        /// A write is reported rejected (`queueFull`) at once, but stays queued and overlaid.
        case rejectButKeep
        /// After the first disconnect, subscriptions show server results only, without pending
        /// writes laid over them (a reconnect "forgets" the optimistic overlay).
        case serverViewAfterReconnect
        /// Going offline re-shows each subscription's first server result (an old snapshot).
        case firstResultWhenOffline
        /// A local link or unlink changes the views but makes no subscription yield.
        case noYieldOnLink
        /// queryOnce answers at once from the local view whenever the device is online, even
        /// when the server cannot be reached.
        case queryOnceFromLocal
        /// After a relaunch, subscribing yields nothing until the server answers (the cache is
        /// not read back).
        case noCacheAfterRelaunch
    }

    var bug: Break
    init(_ b: Break) { bug = b }

    var info: StrategyInfo {
        StrategyInfo(name: "viewBugInstant", summary: "instant with a view bug", contract: Set(InvariantID.allCases), arbitration: .serverArrival)
    }
    var transport: Transport { .stream }

    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> ViewBugClient {
        ViewBugClient(inner: InstantClient(context: context, fullEntity: false, restoring: durable), bug: bug,
                      relaunched: context.incarnation > 0)
    }

    func makeServer(_ context: ServerContext) -> InstantServer { InstantServer(clients: context.clientCount) }
}

struct ViewBugClient: ClientMachine {
    typealias Up = InstantUp
    typealias Down = InstantDown
    var inner: InstantClient
    let bug: ViewBugInstant.Break
    var relaunched = false
    var reconnected = false
    var disconnectedOnce = false
    var offline = false
    var server: [SubscriptionID: QueryResult] = [:]
    var first: [SubscriptionID: QueryResult] = [:]

    var durableState: InstantClient.Durable { inner.durableState }
    var pendingWrites: [WriteID] { inner.pendingWrites }

    func result(of s: SubscriptionID) -> QueryResult? {
        switch bug {
        case .serverViewAfterReconnect where reconnected: return server[s] ?? inner.result(of: s)
        case .firstResultWhenOffline where offline: return first[s] ?? inner.result(of: s)
        default: return inner.result(of: s)
        }
    }

    mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
        switch input {
        case .received(.addQueryOk(let k, let r, _)), .received(.refreshOk(let k, let r, _)):
            if !k.isOnce {
                let s = SubscriptionID(UInt32(k.raw))
                server[s] = r
                if first[s] == nil { first[s] = r }
            }
        case .disconnected: disconnectedOnce = true
        case .connected: reconnected = disconnectedOnce
        default: break
        }
        if case .network(let n) = input, bug != .firstResultWhenOffline { offline = n == .offline }
        let before = out.count
        inner.handle(input, now: now, out: &out)
        var dropYields = false
        switch (bug, input) {
        case (.noYieldOnLink, .user(.write(let w))):
            dropYields = w.ops.contains { if case .link = $0 { return true }; if case .unlink = $0 { return true }; return false }
        case (.noCacheAfterRelaunch, .user(.subscribe)): dropYields = relaunched && offline
        default: break
        }
        if dropYields {
            let effects = out.effects
            out.removeAll()
            for (i, e) in effects.enumerated() {
                if i >= before, case .event(.subscriptionYielded) = e { continue }
                out(e)
            }
        }
        switch (bug, input) {
        case (.queryOnceFromLocal, .user(.queryOnce(let r, _))) where !offline:
            out(.event(.queryOnceResult(r)))
        case (.serverViewAfterReconnect, .received(.addQueryOk(let k, _, _))) where reconnected && !k.isOnce:
            out(.event(.subscriptionYielded(SubscriptionID(UInt32(k.raw)), fromCache: false)))
        case (.rejectButKeep, .user(.write(let w))):
            out(.event(.writeRejected(w.id, .queueFull)))
        case (.firstResultWhenOffline, .network(let n)):
            offline = n == .offline
            if offline { for s in first.keys.sorted(by: { $0.raw < $1.raw }) { out(.event(.subscriptionYielded(s, fromCache: true))) } }
        default: break
        }
    }
}

/// A tiny datagram write queue through public API: each write is sent to the server (which
/// applies it and acks), and leaves the queue on the ack. Knobs plant one session bug each.
struct LazyQueueStrategy: SyncStrategy {
    /// Wait this long after coming online before flushing the queue.
    var flushDelayMs: Int64 = 100
    /// Tell the user a write is confirmed as soon as it is made.
    var confirmAtOnce = false
    /// Tell the user a write failed (`timeout`) as soon as it is made, and send it anyway.
    var rejectButSend = false
    /// Send writes even while the device is offline.
    var sendWhileOffline = false
    /// Reverse the queue when flushing.
    var flushNewestFirst = false
    /// The server sets links without checking that the target exists.
    var blindLinks = false
    /// A relaunch starts with an empty queue, whatever was persisted.
    var forgetOnRestart = false
    /// The server applies an update as a delete of the entity.
    var updateAsDelete = false

    var info: StrategyInfo {
        StrategyInfo(name: "lazyQueue", summary: "test queue", contract: Set(InvariantID.allCases), arbitration: .serverArrival)
    }
    var transport: Transport { .datagram }

    func makeClient(_ context: ClientContext, restoring durable: [UserWrite]?) -> LazyQueueClient {
        LazyQueueClient(config: self, queue: forgetOnRestart ? [] : durable ?? [])
    }

    func makeServer(_ context: ServerContext) -> LazyQueueServer {
        LazyQueueServer(schema: context.schema, blindLinks: blindLinks, updateAsDelete: updateAsDelete)
    }
}

enum LazyQueueMessage: WireMessage {
    case write(UserWrite)
    case ack(WriteID)
    var kind: String { if case .write = self { return "write" } else { return "ack" } }
    var description: String {
        switch self {
        case .write(let w): return "write \(w.id) \(w)"
        case .ack(let w): return "ack \(w)"
        }
    }
    var carriedWrites: [WriteID] { if case .write(let w) = self { return [w.id] } else { return [] } }
    func stableHash(into h: inout StableHasher) {
        switch self {
        case .write(let w): h.byte(1); w.stableHash(into: &h)
        case .ack(let w): h.byte(2); h.combine(w.raw)
        }
    }
}

struct LazyQueueClient: ClientMachine {
    typealias Up = LazyQueueMessage
    typealias Down = LazyQueueMessage
    let config: LazyQueueStrategy
    var queue: [UserWrite]
    var online = false
    static let flush = TimerID(1)

    var durableState: [UserWrite] { queue }
    func result(of subscription: SubscriptionID) -> QueryResult? { nil }
    var pendingWrites: [WriteID] { queue.map(\.id) }

    mutating func handle(_ input: ClientInput<LazyQueueMessage>, now: Int64, out: inout ClientOutbox<LazyQueueMessage>) {
        switch input {
        case .user(.write(let w)):
            queue.append(w)
            out(.persist)
            if config.confirmAtOnce { out(.event(.writeConfirmed(w.id))) }
            if config.rejectButSend { out(.event(.writeRejected(w.id, .timeout))) }
            if online || config.sendWhileOffline { out(.send(.write(w))) }
        case .received(.ack(let w)):
            queue.removeAll { $0.id == w }
            out(.persist)
        case .network(let n):
            online = n == .online
            if online { out(.setTimer(Self.flush, afterMs: config.flushDelayMs)) } else { out(.cancelTimer(Self.flush)) }
        case .timerFired(Self.flush):
            for w in config.flushNewestFirst ? queue.reversed() : queue { out(.send(.write(w))) }
        default:
            break
        }
    }
}

struct LazyQueueServer: ServerMachine {
    typealias Up = LazyQueueMessage
    typealias Down = LazyQueueMessage
    let schema: Schema
    let blindLinks: Bool
    let updateAsDelete: Bool
    var data = EntityStore()
    var seen = Set<WriteID>()
    var tx: UInt64 = 0

    mutating func handle(_ input: ServerInput<LazyQueueMessage>, now: Int64, out: inout ServerOutbox<LazyQueueMessage>) {
        switch input {
        case .received(let c, .write(let w)):
            if seen.insert(w.id).inserted {
                let ops = updateAsDelete ? w.ops.map { op -> Op in
                    if case .update(let e, let ns, _) = op { return .delete(e, ns) } else { return op }
                } : w.ops
                for op in ops {
                    if blindLinks, case .link(let e, let l, let t) = op, var rec = data[e] {
                        rec.setLink(l, to: t, many: schema.isMany(l))
                        data[e] = rec
                    } else {
                        _ = data.apply(op, schema: schema)
                    }
                }
                tx += 1
                out(.applied(AppliedTransaction(txID: tx, origin: .client(c), writes: [w.id], ops: ops)))
            }
            out(.send(c, .ack(w.id)))
        case .adminWrite(let w):
            for op in w.ops { _ = data.apply(op, schema: schema) }
            if w.id.raw != UInt32.max {
                tx += 1
                out(.applied(AppliedTransaction(txID: tx, origin: .admin, writes: [w.id], ops: w.ops)))
            }
        default:
            break
        }
    }
}

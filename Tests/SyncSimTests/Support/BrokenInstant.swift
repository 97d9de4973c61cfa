import SyncSim

/// `instant` with one deliberate bug per knob, built through public API only (a user could write
/// this). Each invariant test shows its oracle catching one of these bugs and passing without it.
struct BrokenInstant: SyncStrategy {
    enum Break: Hashable {
        /// The client drops `refresh-ok`: its views go stale.
        case ignoreRefresh
        /// After `init-ok` the client replays pending mutations newest first.
        case reverseReplay
        /// Subscriptions show server data only, never the optimistic overlay.
        case noOptimisticReads
        /// `queryOnce` offline answers from the cache instead of failing.
        case queryOnceServesCache
        /// Cached results are never yielded.
        case dropCachedYield
        /// A dropped connection is retried even while the device is offline.
        case reconnectWhileOffline
        /// Subscriptions yield only when a root entity changes (the SpeechRecorderApp symptom).
        case rootOnlyYields
        /// At this many pending writes, new writes are silently ignored.
        case silentDropAtCap(Int)
        /// The server logs every second transaction as applied but does not apply it.
        case lossyServer
        /// Every update is sent as delete + create of the entity.
        case updateAsDeleteCreate
        /// The last known result on `queryOnce`'s offline error shows a title nobody wrote.
        case inventLastKnown
        /// The last known result on `queryOnce`'s offline error is empty.
        case dropLastKnownRoots
    }

    var breaks: Set<Break>
    init(_ b: Break...) { breaks = Set(b) }

    var info: StrategyInfo {
        StrategyInfo(name: "brokenInstant", summary: "instant with deliberate bugs", contract: Set(InvariantID.allCases), arbitration: .serverArrival)
    }
    var transport: Transport { .stream }

    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> BrokenClient {
        BrokenClient(inner: InstantClient(context: context, fullEntity: false, restoring: durable), breaks: breaks)
    }

    func makeServer(_ context: ServerContext) -> BrokenServer {
        BrokenServer(inner: InstantServer(clients: context.clientCount), lossy: breaks.contains(.lossyServer))
    }
}

struct BrokenClient: ClientMachine {
    typealias Up = InstantUp
    typealias Down = InstantDown
    var inner: InstantClient
    let breaks: Set<BrokenInstant.Break>
    var offline = true
    var serverResults: [SubscriptionID: QueryResult] = [:]
    var shown: [SubscriptionID: QueryResult] = [:]

    var durableState: InstantClient.Durable { inner.durableState }
    var pendingWrites: [WriteID] { inner.pendingWrites }

    func result(of s: SubscriptionID) -> QueryResult? {
        if breaks.contains(.noOptimisticReads) { return serverResults[s] }
        if breaks.contains(.rootOnlyYields) { return shown[s] }
        return inner.result(of: s)
    }

    var cap: Int? {
        for b in breaks { if case .silentDropAtCap(let n) = b { return n } }
        return nil
    }

    mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
        if case .network(let n) = input { offline = n == .offline }
        if case .received(.refreshOk) = input, breaks.contains(.ignoreRefresh) { return }
        if case .user(.write) = input, let cap, inner.pendingWrites.count >= cap { return }
        switch input {
        case .received(.addQueryOk(let k, let r, _)), .received(.refreshOk(let k, let r, _)):
            if !k.isOnce { serverResults[SubscriptionID(UInt32(k.raw))] = r }
        default: break
        }
        var mine = ClientOutbox<InstantUp>()
        inner.handle(input, now: now, out: &mine)
        var effects = mine.effects
        if case .received(.initOk) = input, breaks.contains(.reverseReplay) {
            let transacts = effects.filter { if case .send(.transact) = $0 { return true } else { return false } }
            var reversed = Array(transacts.reversed())
            effects = effects.map { e in
                if case .send(.transact) = e { return reversed.removeFirst() }
                return e
            }
        }
        if case .disconnected = input, offline, breaks.contains(.reconnectWhileOffline) { effects.append(.connect) }
        for e in effects {
            switch e {
            case .event(let ev) where breaks.contains(.queryOnceServesCache) && ev.queryOnceFailure?.offline == true:
                out(.event(.queryOnceResult(ev.queryOnceFailure!.request)))
            case .event(.queryOnceFailedWithResult(let r, let off, var last)) where breaks.contains(.inventLastKnown):
                last.entries = last.entries.map { x in
                    var y = x
                    if last.roots.contains(y.id) { y.record.values[0] = .string("invented") }
                    return y
                }
                out(.event(.queryOnceFailedWithResult(r, offline: off, lastKnown: last)))
            case .event(.queryOnceFailedWithResult(let r, let off, _)) where breaks.contains(.dropLastKnownRoots):
                out(.event(.queryOnceFailedWithResult(r, offline: off, lastKnown: .empty)))
            case .event(.subscriptionYielded(_, true)) where breaks.contains(.dropCachedYield):
                continue
            case .event(.subscriptionYielded(let s, _)) where breaks.contains(.rootOnlyYields):
                let new = inner.result(of: s)
                if let old = shown[s], let new, old.roots == new.roots,
                   old.roots.allSatisfy({ old.record($0) == new.record($0) }) {
                    continue   // only children changed: the bug swallows the yield
                }
                shown[s] = new
                out(e)
            case .send(.transact(let id, let ws, let steps)) where breaks.contains(.updateAsDeleteCreate):
                var rewritten: [InstantStep] = []
                for st in steps {
                    if case .update(let en, let ns, let a) = st.op {
                        rewritten.append(InstantStep(.delete(en, ns), upsert: false))
                        rewritten.append(InstantStep(.create(en, ns, a), upsert: false))
                    } else {
                        rewritten.append(st)
                    }
                }
                out(.send(.transact(eventID: id, writes: ws, steps: rewritten)))
            default:
                out(e)
            }
        }
    }
}

struct BrokenServer: ServerMachine {
    typealias Up = InstantUp
    typealias Down = InstantDown
    var inner: InstantServer
    let lossy: Bool
    var transacts = 0
    var data: EntityStore { inner.data }

    mutating func handle(_ input: ServerInput<InstantUp>, now: Int64, out: inout ServerOutbox<InstantDown>) {
        if lossy, case .received(let c, .transact(let id, let ws, let steps)) = input {
            transacts += 1
            if transacts % 2 == 0 {
                out(.applied(AppliedTransaction(txID: inner.txID, origin: .client(c), writes: ws, ops: steps.map(\.op))))
                out(.send(c, .transactOk(eventID: id, writes: ws, txID: inner.txID)))
                return
            }
        }
        inner.handle(input, now: now, out: &out)
    }
}

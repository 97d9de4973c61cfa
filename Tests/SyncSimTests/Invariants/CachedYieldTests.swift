import Testing
@testable import SyncSim

/// `cachedSubscriptionOffline` checks that an offline yield *is* the cached result
/// (`Monitor.checkCachedYieldIsCache`): it keeps the cached roots and shows only values that
/// exist somewhere. Fails on an instant whose relaunched cache is empty or garbled; holds on
/// instant and reference, including when the local copy moved ahead through another query.
@Suite struct CachedYieldTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    var relaunchOffline: [TimedAction] {
        F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .restart(A)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
    }

    @Test func failsWhenTheRelaunchedCacheLostItsEntities() throws {
        let bad = try F.run(CacheBugInstant(.empty), relaunchOffline)
        let v = try #require(bad.violations.first { $0.invariant == .cachedSubscriptionOffline }, "\(bad.violations)")
        #expect(v.entity == F.todo && v.explanation.contains("without #1"), "\(v)")
    }

    @Test func failsWhenTheRelaunchedCacheShowsValuesFromNowhere() throws {
        let bad = try F.run(CacheBugInstant(.garbled), relaunchOffline)
        let v = try #require(bad.violations.first { $0.invariant == .cachedSubscriptionOffline }, "\(bad.violations)")
        #expect(v.explanation.contains("never held"), "\(v)")
    }

    @Test func holdsOnInstantAndReference() throws {
        for s in [AnyStrategy(InstantStrategy()), AnyStrategy(ReferenceStrategy())] {
            let good = try s.run(Schedule(options: F.options(), initial: F.initial, actions: relaunchOffline), seed: 1)
            #expect(!good.violatedInvariants.contains(.cachedSubscriptionOffline), "\(s.name): \(good.violations)")
        }
    }

    /// A's local copy moves ahead through another query: a filtered subscription's cached root
    /// leaves the filter (B marked it done, A saw that through its all-todos subscription). The
    /// relaunched filtered subscription legitimately lacks it: no false alarm.
    @Test func localCopyMovingAheadIsNoViolation() throws {
        let open = Query(.todos, where: FieldAssignment(.done, .bool(false)))
        let actions = [
            TimedAction(at: 0, .subscribe(A, SubscriptionID(1), open)),
            TimedAction(at: 0, .subscribe(A, SubscriptionID(2), Query(.todos))),
            TimedAction(at: 500, .unsubscribe(A, SubscriptionID(1))),
            TimedAction(at: 600, .update(B, F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .subscribe(A, SubscriptionID(3), open)),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        for s in [AnyStrategy(InstantStrategy()), AnyStrategy(ReferenceStrategy())] {
            let r = try s.run(Schedule(options: F.options(), initial: F.initial, actions: actions), seed: 1)
            #expect(!r.violatedInvariants.contains(.cachedSubscriptionOffline), "\(s.name): \(r.violations)")
        }
    }
}

/// instant whose cache, read back at a relaunch while offline, is wrong until the server answers.
struct CacheBugInstant: SyncStrategy {
    enum Break: Hashable, Sendable {
        /// The relaunched offline result is empty (nothing read back, yet a yield).
        case empty
        /// The relaunched offline result shows every string field as "cache" (a corrupt read).
        case garbled
    }
    var bug: Break
    init(_ b: Break) { bug = b }
    var info: StrategyInfo {
        StrategyInfo(name: "cacheBugInstant", summary: "instant with a cache bug", contract: Set(InvariantID.allCases), arbitration: .serverArrival)
    }
    var transport: Transport { .stream }
    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> CacheBugClient {
        CacheBugClient(inner: InstantClient(context: context, fullEntity: false, restoring: durable), bug: bug, relaunched: context.incarnation > 0)
    }
    func makeServer(_ context: ServerContext) -> InstantServer { InstantServer(clients: context.clientCount) }
}

struct CacheBugClient: ClientMachine {
    typealias Up = InstantUp
    typealias Down = InstantDown
    var inner: InstantClient
    let bug: CacheBugInstant.Break
    var relaunched: Bool
    var offline = false

    var durableState: InstantClient.Durable { inner.durableState }
    var pendingWrites: [WriteID] { inner.pendingWrites }

    func result(of s: SubscriptionID) -> QueryResult? {
        guard let r = inner.result(of: s), relaunched && offline else { return inner.result(of: s) }
        switch bug {
        case .empty: return .empty
        case .garbled:
            var g = r
            for i in g.entries.indices {
                for (fi, v) in g.entries[i].record.values.enumerated() {
                    if case .string? = v { g.entries[i].record[FieldID(UInt8(fi))] = .string("cache") }
                }
            }
            return g
        }
    }

    mutating func handle(_ input: ClientInput<InstantDown>, now: Int64, out: inout ClientOutbox<InstantUp>) {
        if case .network(let n) = input { offline = n == .offline }
        inner.handle(input, now: now, out: &out)
    }
}

import Testing
@testable import SyncSim

/// The `pushPull` and `reference` clients bring each distinct query's result up to date once and
/// share it among the subscriptions to that query (`SubscriptionGroups`). What each subscription
/// shows and when it yields must be what it was with one result per subscription: its query over
/// the view (the incremental tests), a yield exactly when what it shows changed (or it was just
/// subscribed), and the same run.
@Suite("Reference subscription groups")
struct ReferenceSubscriptionGroupsTests {
    @Test func subscriptionsToOneQueryShareAGroupAndFreedSlotsAreReused() {
        var g = SubscriptionGroups()
        let posts = Query(.posts, include: .forward(.author)), profiles = Query(.profiles), todos = Query(.todos)
        let a = g.subscribe(SubscriptionID(3), to: posts, schema: .default)
        let b = g.subscribe(SubscriptionID(1), to: profiles, schema: .default)
        #expect(g.subscribe(SubscriptionID(2), to: posts, schema: .default) == a)
        #expect(a != b)
        #expect(g.subs.map(\.id) == [SubscriptionID(1), SubscriptionID(2), SubscriptionID(3)])
        #expect(g.groups[a].members == 2)
        // Nothing shown before a result exists; then every subscription not yet shown yields,
        // in id order, once.
        var yields: [SubscriptionID] = []
        g.takeYields { yields.append($0) }
        #expect(yields.isEmpty)
        g.groups[a].result = QueryResult.empty
        g.groups[b].result = QueryResult.empty
        g.takeYields { yields.append($0) }
        #expect(yields == [SubscriptionID(1), SubscriptionID(2), SubscriptionID(3)])
        #expect(g.result(of: SubscriptionID(2)) == QueryResult.empty)
        yields = []
        g.groups[a].changed = true
        g.takeYields { yields.append($0) }
        #expect(yields == [SubscriptionID(2), SubscriptionID(3)])
        // Resubscribing an id moves it; the last subscription of a query frees its slot.
        #expect(g.subscribe(SubscriptionID(3), to: profiles, schema: .default) == b)
        #expect(g.result(of: SubscriptionID(3)) == nil)
        g.unsubscribe(SubscriptionID(2))
        #expect(g.groups[a].members == 0 && g.groups[a].result == nil)
        #expect(g.subscribe(SubscriptionID(4), to: todos, schema: .default) == a)
        #expect(g.groups[a].query == todos && g.groups[a].reads == todos.readNamespaces(in: .default))
        #expect(g.group(of: SubscriptionID(2)) == nil)
    }

    /// `place(of:)` (a binary search over the ids, which ascend) finds what a linear search
    /// finds, and `group(of:)`, `result(of:)` read what they read through it, through random
    /// subscribes (to a new id or one held), unsubscribes, shows and results.
    @Test func placeIsTheLinearSearchs() {
        var g = SubscriptionGroups()
        let queries = [Query(.todos), Query(.profiles), Query(.posts, include: .forward(.author))]
        var state: UInt64 = 3
        func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var found = 0, shown = 0
        for step in 0..<600 {
            let s = SubscriptionID(UInt32(below(24)))
            switch below(5) {
            case 0, 1: _ = g.subscribe(s, to: queries[below(3)], schema: .default)
            case 2: g.unsubscribe(s)
            case 3: g.markShown(s)
            default:
                let k = below(g.groups.count + 1)
                if k < g.groups.count, g.groups[k].members > 0 {
                    g.groups[k].result = below(3) == 0 ? nil : QueryResult(roots: [EntityID(UInt32(k))], entries: [])
                }
            }
            for t in (0..<24).map({ SubscriptionID(UInt32($0)) }) {
                let i = g.subs.firstIndex { $0.id == t }
                #expect(g.place(of: t) == i, "step \(step)")
                #expect(g.group(of: t) == i.map { g.subs[$0].group }, "step \(step)")
                let want = i.flatMap { g.subs[$0].shown ? g.groups[g.subs[$0].group].result : nil }
                #expect(g.result(of: t) == want, "step \(step)")
                if i != nil { found += 1 }
                if want != nil { shown += 1 }
            }
        }
        #expect(found > 3_000 && shown > 1_000)
    }

    /// A client whose subscriptions are grouped (what the checking wrapper reads).
    protocol Grouped: ClientMachine {
        var groupedSubscriptions: SubscriptionGroups { get }
    }

    /// Checks after every input: each subscription yields exactly when what it shows changed
    /// (a subscribe command yields for its subscription whatever it shows), at most once, and
    /// subscriptions to equal queries show equal results.
    struct YieldChecked<Inner: Grouped>: ClientMachine {
        var inner: Inner
        let log: DivergenceLog

        mutating func handle(_ input: ClientInput<Inner.Down>, now: Int64, out: inout ClientOutbox<Inner.Up>) {
            let subs = inner.groupedSubscriptions.subs
            let before = subs.map { inner.result(of: $0.id) }
            let start = out.count
            inner.handle(input, now: now, out: &out)
            var yielded: [SubscriptionID] = []
            for k in start..<out.count {
                if case .event(.subscriptionYielded(let s, _)) = out.effects[k] { yielded.append(s) }
            }
            var subscribed: SubscriptionID?
            if case .user(.subscribe(let s, _)) = input { subscribed = s }
            let groups = inner.groupedSubscriptions
            for s in groups.subs {
                log.checked(reused: groups.groups[s.group].members > 1)
                let was = subs.firstIndex { $0.id == s.id }.flatMap { before[$0] }
                let now = inner.result(of: s.id)
                let times = yielded.filter { $0 == s.id }.count
                let want = s.id == subscribed ? (now == nil ? 0 : 1) : (was == now ? 0 : 1)
                if times != want {
                    log.diverged("\(s.id) after \(input): yielded \(times) times, its result \(was == now ? "unchanged" : "changed")")
                }
            }
            for s in groups.subs {
                for t in groups.subs where t.id > s.id && groups.groups[t.group].query == groups.groups[s.group].query {
                    if inner.result(of: s.id) != nil, inner.result(of: t.id) != nil, inner.result(of: s.id) != inner.result(of: t.id) {
                        log.diverged("\(s.id) and \(t.id) show one query differently after \(input)")
                    }
                }
            }
        }

        var durableState: Inner.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }

    struct CheckedPushPull: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { PushPullStrategy().info }
        var transport: Transport { PushPullStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> YieldChecked<PushPullClient> {
            YieldChecked(inner: PushPullClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> PushPullServer { PushPullStrategy().makeServer(context) }
    }

    struct CheckedReference: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { ReferenceStrategy().info }
        var transport: Transport { ReferenceStrategy().transport }
        func makeClient(_ context: ClientContext, restoring durable: ReferenceClient.Durable?) -> YieldChecked<ReferenceClient> {
            YieldChecked(inner: ReferenceClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> ReferenceServer { ReferenceStrategy().makeServer(context) }
    }

    /// Long runs: relaunches subscribe to the same few queries again, so groups hold several
    /// subscriptions.
    @Test func yieldsAreThoseOfOneResultPerSubscription() throws {
        for (name, strategy) in [("pushPull", 0), ("reference", 1)] {
            let log = DivergenceLog()
            var hashes: [String] = []
            for seed in UInt64(1)...3 {
                let schedule = WorkloadGenerator(.init(actions: 500)).generate(seed: seed)
                let checked = strategy == 0 ? try Simulator.run(CheckedPushPull(log: log), schedule, seed: seed)
                                            : try Simulator.run(CheckedReference(log: log), schedule, seed: seed)
                let plain = strategy == 0 ? try Simulator.run(PushPullStrategy(), schedule, seed: seed)
                                          : try Simulator.run(ReferenceStrategy(), schedule, seed: seed)
                if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
            }
            #expect(log.divergences.isEmpty, "\(name): \(log.divergences)")
            #expect(hashes.isEmpty, "\(name): the checking wrapper changed the run: \(hashes)")
            #expect(log.checks > 1_000, "\(name)")
            #expect(log.reused > 100, "\(name): no group held two subscriptions")
        }
    }
}

extension PushPullClient: ReferenceSubscriptionGroupsTests.Grouped {
    var groupedSubscriptions: SubscriptionGroups { subs }
}

extension ReferenceClient: ReferenceSubscriptionGroupsTests.Grouped {
    var groupedSubscriptions: SubscriptionGroups { subs }
}

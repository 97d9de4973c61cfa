import Testing
@testable import SyncSim

/// `noDuplicateRows` (`Monitor+Rows.swift`) and exactly-once arrival of a bulk: each oracle fails
/// on a deliberately broken server or pager and holds on `pushPull` and `reference`.
@Suite("noDuplicateRows and exactly-once arrival")
struct NoDuplicateRowsTests {
    static let a = ClientID(0)
    static let b = ClientID(1)

    /// `PushPullTests.offlineCreateMapsToAServerIDWithoutDuplicatesAfterALostAck`'s schedule:
    /// A's offline create is applied, its answer lost, and the retry pushes the same create.
    static func lostAck(idempotent: Bool) -> Schedule {
        var o = PushPullTests.options(clients: 1)
        o.strategy.pushPullIdempotentCreates = idempotent
        return Schedule(options: o, initial: [PushPullTests.initialTodo], actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 500, .goOffline(a)),
            TimedAction(at: 600, .create(a, EntityID(9), .todos, [FieldAssignment(.title, .string("new"))])),
            TimedAction(at: 1_000, .goOnline(a)),
            TimedAction(at: 1_175, .goOffline(a)),
            TimedAction(at: 2_000, .goOnline(a)),
        ])
    }

    static func rows(_ r: RunResult, _ e: EntityID) -> [UInt64] {
        r.history.applied.flatMap(\.tx.rows).filter { $0.entity == e }.map(\.row)
    }

    @Test func aServerThatInsertsARetriedCreateAgainIsCaught() throws {
        let r = try Simulator.run(PushPullStrategy(), Self.lostAck(idempotent: false), seed: 1)
        let v = r.violations.filter { $0.invariant == .noDuplicateRows }
        #expect(v.count == 1 && v.first?.entity == EntityID(9), "\(r.violations)")
        #expect(Set(Self.rows(r, EntityID(9))).count == 2)
    }

    @Test func theFaithfulServerAndReferenceHold() throws {
        let r = try Simulator.run(PushPullStrategy(), Self.lostAck(idempotent: true), seed: 1)
        #expect(!r.violations.contains { $0.invariant == .noDuplicateRows }, "\(r.violations)")
        #expect(Self.rows(r, EntityID(9)).count == 1, "the retried create is the same row")
        let ref = try Simulator.run(ReferenceStrategy(), Self.lostAck(idempotent: true), seed: 1)
        #expect(ref.violations.isEmpty, "\(ref.violations)")
    }

    /// 30 items created offline, pushed in batches of 10 and pulled in pages of 7; A loses its
    /// network while batch 2's answer is in flight, so that batch is pushed again.
    static func dropBetweenBatches(idempotent: Bool = true) -> Schedule {
        var o = PushPullTests.options(clients: 2)
        o.queueCap = 100
        o.strategy.pushBatchSize = 10
        o.strategy.pullPageSize = 7
        o.strategy.pushPullIdempotentCreates = idempotent
        return Schedule(options: o, actions: [
            TimedAction(at: 0, .subscribe(a, SubscriptionID(1), Query(.todos))),
            TimedAction(at: 0, .subscribe(b, SubscriptionID(2), Query(.todos))),
            TimedAction(at: 150, .goOffline(a)),
            TimedAction(at: 200, .bulkCreate(a, firstEntity: EntityID(10), count: 30, .todos, [FieldAssignment(.title, .string("item"))])),
            // Online at 1000: pull 1000→1100, batch 1 1100→1200, batch 2 sent at 1200, applied
            // at 1250, its answer due at 1300.
            TimedAction(at: 1_000, .goOnline(a)),
            TimedAction(at: 1_275, .goOffline(a)),
            TimedAction(at: 2_000, .goOnline(a)),
        ])
    }

    @Test func aDropBetweenBatchesResumesWithNoLossAndNoDuplicate() throws {
        let r = try Simulator.run(PushPullStrategy(), Self.dropBetweenBatches(), seed: 1)
        let claimed = PushPullStrategy().info.contract
        #expect(r.violations.filter { claimed.contains($0.invariant) }.isEmpty, "\(r.violations)")
        #expect(r.history.messagesLost >= 1)
        let ids = (10..<40).map { EntityID(UInt32($0)) }
        #expect(r.server.ids == ids)
        for e in ids { #expect(Self.rows(r, e).count == 1, "entity \(e.raw)") }
        // Every bulk write applied exactly once.
        for w in 0..<30 { #expect(r.history.applied.filter { $0.tx.writes.contains(WriteID(UInt32(w))) }.count == 1, "w\(w)") }
        // The retried batch: 10 rows pushed twice, answered "unchanged" the second time.
        let pushes = r.history.applied.count
        #expect(pushes == 3, "three batches applied: \(pushes)")
    }

    @Test func aNonIdempotentServerDuplicatesTheRetriedBatch() throws {
        let r = try Simulator.run(PushPullStrategy(), Self.dropBetweenBatches(idempotent: false), seed: 1)
        let dup = Set(r.violations.filter { $0.invariant == .noDuplicateRows }.compactMap(\.entity))
        #expect(dup == Set((20..<30).map { EntityID(UInt32($0)) }), "batch 2's rows: \(r.violations)")
    }

    /// A pager that skips the page after the first loses rows on the client: `convergence`
    /// (every subscription ends equal to the server's answer) is the exactly-once arrival check
    /// on clients, and it catches it; the faithful pager holds.
    @Test func aPagerThatSkipsAPageIsCaughtByConvergence() throws {
        var s = Self.dropBetweenBatches()
        s.actions.removeAll { if case .goOffline = $0.action, $0.at == 1_275 { return true } else { return false } }
        let bad = try Simulator.run(SkippingPager(), s, seed: 1)
        #expect(bad.violations.contains { $0.invariant == .convergence && $0.client == Self.b }, "\(bad.violations)")
        let good = try Simulator.run(PushPullStrategy(), s, seed: 1)
        #expect(!good.violations.contains { $0.invariant == .convergence }, "\(good.violations)")
    }
}

extension NoDuplicateRowsTests {
    /// A pager that sends one page twice (the second time as the next page, cursor unchanged):
    /// the client applies the same rows again, which in this model is the same rows — rows are
    /// keyed by entity, so a repeated pull page cannot make a client show an item twice, and no
    /// oracle may call it a duplicate. (A repeated *push* batch is what can duplicate rows, on a
    /// server that inserts again: `aNonIdempotentServerDuplicatesTheRetriedBatch`.)
    @Test func aPagerThatRepeatsAPageDuplicatesNothing() throws {
        var s = Self.dropBetweenBatches()
        s.actions.removeAll { if case .goOffline = $0.action, $0.at == 1_275 { return true } else { return false } }
        let r = try Simulator.run(SkippingPager(repeatOnce: true), s, seed: 1, trace: .full)
        #expect(r.violations.isEmpty, "\(r.violations)")
        // The repeat happened: one page more than the faithful pager sends.
        let plain = try Simulator.run(PushPullStrategy(), s, seed: 1, trace: .full)
        func pages(_ x: RunResult) -> Int { x.trace.filter { $0.text.hasPrefix("server sends") && $0.text.contains("pulled") }.count }
        #expect(pages(r) == pages(plain) + 1, "\(pages(r)) vs \(pages(plain))")
        #expect(r.clients[1].subscriptions[0].result?.roots.count == 30)
    }
}

/// pushPull whose server, answering a page that has more, jumps the cursor past the next page
/// (or, with `repeatOnce`, sends the first such page again as the next one).
struct SkippingPager: SyncStrategy {
    var repeatOnce = false
    var info: StrategyInfo {
        var i = PushPullStrategy().info
        i.name = "skippingPager"
        return i
    }
    var transport: Transport { .datagram }
    func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> PushPullClient {
        PushPullStrategy().makeClient(context, restoring: durable)
    }
    func makeServer(_ context: ServerContext) -> SkippingPagerServer { SkippingPagerServer(inner: PushPullStrategy().makeServer(context), repeatOnce: repeatOnce) }
}

struct SkippingPagerServer: ServerMachine {
    var inner: PushPullServer
    var repeatOnce = false
    var repeated: PushPullDown?
    var data: EntityStore { inner.data }
    mutating func handle(_ input: ServerInput<PushPullUp>, now: Int64, out: inout ServerOutbox<PushPullDown>) {
        guard case .received(let c, .pull(let s, let since, let page)) = input else {
            inner.handle(input, now: now, out: &out)
            return
        }
        var answer = inner.pull(sync: s, since: since, page: page)
        if repeatOnce {
            if case .pulled(let rs, let ch, let del, let cursor, _, let p)? = repeated, rs == s, p + 1 == page {
                answer = .pulled(sync: s, changes: ch, deleted: del, timestamp: cursor, hasMore: true, page: page)
                repeated = .pulled(sync: 0, changes: [], deleted: [], timestamp: 0, page: 0)
            } else if repeated == nil, case .pulled(_, _, _, _, true, _) = answer {
                repeated = answer
            }
            out(.send(c, answer))
            return
        }
        if case .pulled(_, let ch, let del, let cursor, true, _) = answer,
           case .pulled(_, _, _, let skipped, let more, _) = inner.pull(sync: s, since: cursor, page: page + 1) {
            answer = .pulled(sync: s, changes: ch, deleted: del, timestamp: skipped, hasMore: more, page: page)
        }
        out(.send(c, answer))
    }
}

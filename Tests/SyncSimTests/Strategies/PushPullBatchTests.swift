import Testing
@testable import SyncSim

/// Seed 004 §2.1 batches and pages: pushes of at most `pushBatchSize` rows, each answered before
/// the next; pulls of at most `pullPageSize` rows with `hasMore` and a cursor; what a drop
/// between them does (resume, no loss, no duplicate).
@Suite("PushPull batches and pages")
struct PushPullBatchTests {
    typealias C = PushPullClient

    static func client(batch: Int = 100_000, page: Int = 100_000) -> PushPullClient {
        var ctx = ClientContext.testing(queueCap: 100_000)
        ctx.options.pushBatchSize = batch
        ctx.options.pullPageSize = page
        return PushPullStrategy().makeClient(ctx, restoring: nil)
    }

    static func creates(_ n: Int, from first: UInt32 = 1) -> [UserWrite] {
        (0..<n).map { k in
            UserWrite(id: WriteID(UInt32(k)), ops: [.create(EntityID(first + UInt32(k)), .todos, [FieldAssignment(.title, .string("t"))])])
        }
    }

    static func pushes(_ fx: [ClientEffect<PushPullUp>]) -> [(batch: UInt32, rows: [PushRecord])] {
        fx.compactMap { if case .send(.push(_, _, let rs, let b)) = $0 { return (b, rs) } else { return nil } }
    }

    /// 250 rows go as batches of 100, 100 and 50; each is sent only after the previous one's
    /// answer, and an answer to another batch is ignored.
    @Test func pushesGoInBatchesOfAHundred() {
        var c = Self.client(batch: 100)
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [], deleted: [], timestamp: 0)), now: 10)
        for w in Self.creates(250) { _ = c.step(.user(.write(w)), now: 100) }
        _ = c.step(.timerFired(C.soonTimer), now: 600)
        var fx = c.step(.received(.pulled(sync: 2, changes: [], deleted: [], timestamp: 0)), now: 650)
        var sent = Self.pushes(fx)
        #expect(sent.count == 1 && sent[0].batch == 0 && sent[0].rows.count == 100)
        #expect(sent.first?.rows.first?.entity == EntityID(1) && sent.first?.rows.last?.entity == EntityID(100))
        #expect(c.pushBatch == 0)
        func answer(_ rows: [PushRecord], batch: UInt32) -> PushPullDown {
            .pushed(sync: 2, results: rows.enumerated().map { PushResult(entity: $0.element.entity, outcome: .applied(serverKey: UInt64($0.offset + 1))) }, batch: batch)
        }
        let first = sent[0].rows
        fx = c.step(.received(answer(first, batch: 0)), now: 700)
        #expect(fx.filter { if case .event(.writeConfirmed) = $0 { return true } else { return false } }.count == 100)
        sent = Self.pushes(fx)
        #expect(sent.count == 1 && sent[0].batch == 1 && sent[0].rows.count == 100)
        #expect(sent.first?.rows.first?.entity == EntityID(101))
        #expect(c.pendingWrites.count == 150)
        // A duplicate of batch 1's answer arriving now changes nothing.
        #expect(c.step(.received(answer(first, batch: 0)), now: 720).isEmpty)
        fx = c.step(.received(answer(sent[0].rows, batch: 1)), now: 750)
        sent = Self.pushes(fx)
        #expect(sent.count == 1 && sent[0].batch == 2 && sent[0].rows.count == 50)
        fx = c.step(.received(answer(sent[0].rows, batch: 2)), now: 800)
        #expect(Self.pushes(fx).isEmpty)
        #expect(c.pendingWrites.isEmpty)
        #expect(c.phase == .idle)
    }

    /// The server pages a pull: at most `pageSize` rows in stamp order, `hasMore` and the last
    /// row's stamp as the cursor; pulling from each cursor yields every row exactly once.
    @Test func pullPagesCoverEveryRowOnce() {
        var s = PushPullServer(pageSize: 2)
        let rows = Self.creates(5).map { w -> PushRecord in
            guard case .create(let e, let ns, let a) = w.ops[0] else { fatalError() }
            var r = EntityRecord(namespace: ns, schema: .default)
            for x in a { r[x.field] = x.value }
            return PushRecord(entity: e, clientKey: UInt64(e.raw) << 22, serverKey: nil, status: .created, record: r, updatedAt: 10, writes: [w.id], force: false)
        }
        _ = s.step(.received(from: ClientID(0), .push(sync: 1, lastPulledAt: 0, records: rows)), now: 10)
        var since: UInt64? = nil
        var seen: [EntityID] = []
        var pages: [Bool] = []
        for page in 0..<10 {
            guard case .pulled(_, let ch, _, let ts, let more, let p) = s.pull(sync: 2, since: since, page: UInt32(page)) else { return }
            #expect(p == UInt32(page))
            #expect(ch.count <= 2)
            seen += ch.map(\.entity)
            pages.append(more)
            since = ts
            if !more { break }
        }
        #expect(seen == (1...5).map { EntityID(UInt32($0)) })
        #expect(pages == [true, true, false])
        #expect(since == s.version)
    }

    /// The client follows `hasMore`: it pulls again from the cursor, persisting each page, and
    /// ignores a late answer to an earlier page.
    @Test func theClientPullsUntilHasMoreIsFalse() {
        var c = Self.client(page: 2)
        _ = c.step(.network(.online), now: 0)
        let r1 = RemoteRecord(entity: EntityID(1), serverKey: 1, record: PushPullTests.todo("a", done: false), updatedAt: 0)
        let r2 = RemoteRecord(entity: EntityID(2), serverKey: 2, record: PushPullTests.todo("b", done: false), updatedAt: 0)
        let page1 = PushPullDown.pulled(sync: 1, changes: [r1, r2], deleted: [], timestamp: 2, hasMore: true, page: 0)
        var fx = c.step(.received(page1), now: 10)
        #expect(fx.contains(.persist))
        #expect(fx.contains(.send(.pull(sync: 1, since: 2, page: 1))))
        #expect(c.lastPulledAt == 2)
        #expect(c.step(.received(page1), now: 15).isEmpty, "a duplicate of page 1 is ignored")
        let r3 = RemoteRecord(entity: EntityID(3), serverKey: 3, record: PushPullTests.todo("c", done: false), updatedAt: 0)
        fx = c.step(.received(.pulled(sync: 1, changes: [r3], deleted: [], timestamp: 3, hasMore: false, page: 1)), now: 20)
        #expect(!fx.contains { if case .send(.pull) = $0 { return true } else { return false } })
        #expect(c.lastPulledAt == 3)
        #expect(c.records.changedIDs.isEmpty && c.records[EntityID(3)] != nil && c.phase == .idle)
    }

    /// A post pushed in an earlier batch than the profile it links to would lose its author (the
    /// server keeps no link to a row it does not have, and batches are separate pushes): with
    /// several batches the rows go grouped by type, link targets' types first.
    @Test func batchesPushLinkTargetsFirst() throws {
        let a = ClientID(0)
        var o = PushPullTests.options(clients: 2)
        o.strategy.pushBatchSize = 1
        let schedule = Schedule(options: o, actions: [
            TimedAction(at: 0, .subscribe(ClientID(1), SubscriptionID(1), Query(.posts, include: .forward(.author)))),
            TimedAction(at: 100, .goOffline(a)),
            TimedAction(at: 200, .create(a, EntityID(1), .posts, [FieldAssignment(.content, .string("hi"))])),
            TimedAction(at: 300, .create(a, EntityID(2), .profiles, [FieldAssignment(.name, .string("ann"))])),
            TimedAction(at: 400, .link(a, EntityID(1), .author, EntityID(2))),
            TimedAction(at: 1_000, .goOnline(a)),
        ])
        let r = try Simulator.run(PushPullStrategy(), schedule, seed: 1)
        #expect(r.server[EntityID(1)]?.points(.author, at: EntityID(2)) == true, "\(r.violations)")
        let claimed = PushPullStrategy().info.contract
        #expect(r.violations.filter { claimed.contains($0.invariant) }.isEmpty, "\(r.violations)")
        #expect(PushPullClient.groupedByType([], schema: .default).isEmpty)
    }

    /// A drop between pages: the page applied stays applied and its cursor is persisted, so the
    /// retry (and a relaunch) pulls from the cursor, not from the beginning: nothing is pulled
    /// twice or skipped.
    @Test func aDropBetweenPagesResumesFromTheCursor() {
        var c = Self.client(page: 2)
        _ = c.step(.network(.online), now: 0)
        let r1 = RemoteRecord(entity: EntityID(1), serverKey: 1, record: PushPullTests.todo("a", done: false), updatedAt: 0)
        let r2 = RemoteRecord(entity: EntityID(2), serverKey: 2, record: PushPullTests.todo("b", done: false), updatedAt: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [r1, r2], deleted: [], timestamp: 2, hasMore: true, page: 0)), now: 10)
        // Page 2's answer never comes: the request times out and the sync backs off.
        _ = c.step(.timerFired(C.requestTimer(1)), now: 6_010)
        #expect(c.phase == .idle && c.lastPulledAt == 2)
        let retry = c.step(.timerFired(C.retryTimer), now: 8_000)
        #expect(retry.contains(.send(.pull(sync: 2, since: 2, page: 0))), "\(retry)")
        // A relaunch resumes from the persisted cursor too.
        var again = PushPullStrategy().makeClient(.testing(queueCap: 100_000), restoring: c.durableState)
        #expect(again.lastPulledAt == 2 && again.records[EntityID(2)] != nil)
        #expect(again.step(.network(.online), now: 0).contains(.send(.pull(sync: 1, since: 2, page: 0))))
    }
}

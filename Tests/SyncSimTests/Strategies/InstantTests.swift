import Testing
@testable import SyncSim

/// Transcript tests: the `instant` client and server driven input by input, in lockstep, each
/// effect checked exactly (nio-http2 style).
@Suite struct InstantTests {
    static let a = ClientID(0)
    static let todos = Query(.todos)
    static let sub = SubscriptionID(1)

    func write(_ id: UInt32, _ ops: Op...) -> UserCommand { .write(UserWrite(id: WriteID(id), ops: ops)) }

    /// Brings a client and the server to "authenticated, subscribed to todos".
    func connected(persistence: Bool = true) -> (InstantClient, InstantServer) {
        var c = InstantClient(context: .testing(Self.a, persistence: persistence), fullEntity: false, restoring: nil)
        var s = InstantServer(clients: 2)
        #expect(c.step(.network(.online)) == [.connect])
        #expect(c.step(.connected) == [.send(.initialize)])
        #expect(s.step(.clientConnected(Self.a)) == [])
        #expect(s.step(.received(from: Self.a, .initialize)) == [.send(Self.a, .initOk)])
        #expect(c.step(.user(.subscribe(Self.sub, Self.todos))) == [])   // not authenticated yet: waits
        #expect(c.step(.received(.initOk)) == [.send(.addQuery(.subscription(Self.sub), Self.todos))])
        let ok = s.step(.received(from: Self.a, .addQuery(.subscription(Self.sub), Self.todos)))
        #expect(ok == [.send(Self.a, .addQueryOk(.subscription(Self.sub), .empty, processedTxID: 0))])
        let yielded = c.step(.received(.addQueryOk(.subscription(Self.sub), .empty, processedTxID: 0)))
        #expect(yielded == (persistence ? [.persist] : []) + [.event(.subscriptionYielded(Self.sub, fromCache: false))])
        return (c, s)
    }

    @Test func onlineWriteIsSentWithATimeoutAndConfirmedInLockstep() {
        var (c, s) = connected()
        let e = c.step(.user(write(0, .create(EntityID(1), .todos, [FieldAssignment(.title, .string("A"))]))))
        guard let first = e.dropFirst().first, case .send(.transact(let eventID, [WriteID(0)], let steps)) = first else {
            Issue.record("expected a transact, got \(e)"); return
        }
        #expect(e == [.persist, .send(.transact(eventID: eventID, write: WriteID(0), steps: steps)),
                      .setTimer(TimerID(1), afterMs: 6_000), .event(.subscriptionYielded(Self.sub, fromCache: false))])
        #expect(c.pendingWrites == [WriteID(0)])
        let server = s.step(.received(from: Self.a, .transact(eventID: eventID, write: WriteID(0), steps: steps)))
        let result = Self.todos.evaluate(s.data)
        #expect(server == [
            .applied(AppliedTransaction(txID: 1, origin: .client(Self.a), writes: [WriteID(0)], ops: steps.map(\.op))),
            .send(Self.a, .transactOk(eventID: eventID, write: WriteID(0), txID: 1)),
            .send(Self.a, .refreshOk(.subscription(Self.sub), result, processedTxID: 1)),
        ])
        // transact-ok stamps the tx id; the mutation stays until a refresh shows tx 1 processed.
        #expect(c.step(.received(.transactOk(eventID: eventID, write: WriteID(0), txID: 1))) ==
                [.cancelTimer(TimerID(1)), .persist, .event(.writeConfirmed(WriteID(0)))])
        #expect(c.pending.count == 1 && c.pendingWrites.isEmpty)
        _ = c.step(.received(.refreshOk(.subscription(Self.sub), result, processedTxID: 1)))
        #expect(c.pending.isEmpty)   // cleaned up by processed-tx-id
    }

    @Test func offlineWriteIsEnqueuedNotSentAndNoReconnectIsAttempted() {
        var (c, _) = connected()
        #expect(c.step(.network(.offline)) == [.cancelTimer(InstantClient.reconnectTimer)])
        #expect(c.step(.disconnected) == [])   // offline: no reconnect timer
        let e = c.step(.user(write(0, .update(EntityID(1), .todos, [FieldAssignment(.title, .string("T"))]))))
        #expect(!e.contains { if case .send = $0 { return true } else { return false } })
        #expect(!e.contains { if case .setTimer = $0 { return true } else { return false } })
        #expect(c.pendingWrites == [WriteID(0)])
    }

    @Test func replayAfterInitOkResendsQueriesThenMutationsInOrder() {
        var (c, _) = connected()
        _ = c.step(.network(.offline))
        _ = c.step(.disconnected)
        for (i, t) in ["T", "Te", "Tes"].enumerated() {
            _ = c.step(.user(write(UInt32(i), .update(EntityID(1), .todos, [FieldAssignment(.title, .string(t))]))))
        }
        #expect(c.step(.network(.online)) == [.connect])
        #expect(c.step(.connected) == [.send(.initialize)])
        let replay = c.step(.received(.initOk))
        let sent: [String] = replay.compactMap {
            guard case .send(let m) = $0 else { return nil }
            if case .transact(_, let ws, _) = m { return "transact \(ws.map(\.description).joined())" }
            return m.kind
        }
        #expect(sent == ["add-query", "transact w0", "transact w1", "transact w2"])
    }

    @Test func timeoutWhileOnlineRejectsButOfflineSuspends() {
        var (c, _) = connected()
        _ = c.step(.user(write(0, .create(EntityID(1), .todos, []))))
        #expect(c.step(.timerFired(TimerID(1))) == [.persist, .event(.writeRejected(WriteID(0), .timeout)), .event(.subscriptionYielded(Self.sub, fromCache: false))])
        _ = c.step(.user(write(1, .create(EntityID(2), .todos, []))))
        _ = c.step(.network(.offline))
        #expect(c.step(.timerFired(TimerID(2))) == [])
        #expect(c.pendingWrites == [WriteID(1)])
    }

    @Test func queryOnceFailsAtOnceWhileOfflineCarryingTheCachedResult() {
        var (c, _) = connected()
        _ = c.step(.network(.offline))
        #expect(c.step(.user(.queryOnce(QueryRequestID(1), Self.todos))) ==
                [.event(.queryOnceFailedWithResult(QueryRequestID(1), offline: true, lastKnown: .empty))])
        // Without persistence there is no cache: the bare offline error.
        var (d, _) = connected(persistence: false)
        _ = d.step(.network(.offline))
        #expect(d.step(.user(.queryOnce(QueryRequestID(1), Self.todos))) ==
                [.event(.queryOnceFailed(QueryRequestID(1), offline: true, hasStaleResult: false))])
    }

    /// Reactor.js `_sendMutation` keeps no timer handle: a replay adds a timer and the first one
    /// still fires. Fired while online before the replay's answer, it rejects the mutation, and
    /// the replay's late transact-ok is ignored (told rejected, yet applied: `toldOutcomeIsTrue`,
    /// which `instant` does not claim; `Scenarios/sync/instant-timeout-rejects-replayed-write.json`).
    @Test func aReplayLeavesTheFirstTimeoutRunning() {
        var (c, _) = connected()
        let first = c.step(.user(write(0, .create(EntityID(1), .todos, []))))
        #expect(first.contains(.setTimer(TimerID(1), afterMs: 6_000)))
        _ = c.step(.disconnected)                       // the send is lost with the connection
        _ = c.step(.timerFired(InstantClient.reconnectTimer))
        #expect(c.step(.connected) == [.send(.initialize)])
        let replay = c.step(.received(.initOk))
        // inFlight was cleared when init was sent; one stored mutation: max(6 s, min(1, 2) × 6 s).
        #expect(replay.contains(.setTimer(TimerID(2), afterMs: 6_000)))
        #expect(!replay.contains(.cancelTimer(TimerID(1))))
        let fired = c.step(.timerFired(TimerID(1)))
        #expect(fired.contains(.event(.writeRejected(WriteID(0), .timeout))))
        #expect(fired.contains(.cancelTimer(TimerID(2))))
        #expect(c.pending.isEmpty)
    }

    /// inFlight counts transacts sent on this connection without an answer; stored counts every
    /// stored mutation, confirmed ones included (Reactor `_inFlightMutationEventIds`,
    /// `_pendingMutations().size`).
    @Test func theTimeoutGrowsWithTransactsInFlight() {
        var (c, _) = connected()
        #expect(c.step(.user(write(0, .create(EntityID(1), .todos, [])))).contains(.setTimer(TimerID(1), afterMs: 6_000)))
        #expect(c.step(.user(write(1, .create(EntityID(2), .todos, [])))).contains(.setTimer(TimerID(2), afterMs: 12_000)))
        #expect(c.step(.user(write(2, .create(EntityID(3), .todos, [])))).contains(.setTimer(TimerID(3), afterMs: 18_000)))
    }

    /// Reactor.js `queryOnce`: rejected with "Query timed out" after 30 s without an answer, even
    /// online; the late answer is then not delivered.
    @Test func queryOnceTimesOutAfterThirtySecondsAndItsLateAnswerIsNotDelivered() {
        var (c, _) = connected()
        let r = QueryRequestID(7)
        let asked = c.step(.user(.queryOnce(r, Self.todos)))
        #expect(asked.contains(.setTimer(TimerID(1), afterMs: 30_000)))
        #expect(c.step(.timerFired(TimerID(1))) == [.event(.queryOnceFailed(r, offline: false, hasStaleResult: false))])
        let late = c.step(.received(.addQueryOk(.once(r), .empty, processedTxID: 0)))
        #expect(!late.contains(.event(.queryOnceResult(r))))
        #expect(late.contains(.send(.removeQuery(.once(r)))))
    }

    @Test func anAnsweredQueryOnceCancelsItsTimeout() {
        var (c, _) = connected()
        let r = QueryRequestID(8)
        _ = c.step(.user(.queryOnce(r, Self.todos)))
        let answered = c.step(.received(.addQueryOk(.once(r), .empty, processedTxID: 0)))
        #expect(answered.contains(.cancelTimer(TimerID(1))))
        #expect(answered.contains(.event(.queryOnceResult(r))))
    }

    /// Cleanup waits for a subscription still showing its cached result (Reactor takes the min
    /// over every loaded query entry, cached ones included).
    @Test func cleanupWaitsForASubscriptionShowingItsCachedResult() {
        var (c, s) = connected()
        // Cache a result of `todos where done == false` at processed tx 0… then at tx 1.
        let open = Query(.todos, where: FieldAssignment(.done, .bool(false)))
        let sub2 = SubscriptionID(2)
        _ = c.step(.user(.subscribe(sub2, open)))
        _ = c.step(.received(.addQueryOk(.subscription(sub2), .empty, processedTxID: 1)))
        _ = c.step(.user(.unsubscribe(sub2)))
        let w = c.step(.user(write(0, .create(EntityID(1), .todos, [FieldAssignment(.done, .bool(false))]))))
        guard case .send(.transact(let eventID, _, let steps))? = w.first(where: { if case .send(.transact) = $0 { return true } else { return false } }) else {
            Issue.record("no transact in \(w)"); return
        }
        _ = s.step(.received(from: Self.a, .transact(eventID: eventID, write: WriteID(0), steps: steps)))
        _ = c.step(.received(.transactOk(eventID: eventID, write: WriteID(0), txID: 2)))
        // Re-subscribing shows the cached result (processed tx 1), still waiting for its answer.
        _ = c.step(.user(.subscribe(SubscriptionID(3), open)))
        _ = c.step(.received(.refreshOk(.subscription(Self.sub), Self.todos.evaluate(s.data), processedTxID: 2)))
        #expect(c.pending.count == 1)   // the cached view (tx 1) has not seen tx 2: kept
        _ = c.step(.received(.addQueryOk(.subscription(SubscriptionID(3)), open.evaluate(s.data), processedTxID: 2)))
        #expect(c.pending.isEmpty)
    }

    /// Reactor.js `_cleanupPendingMutationsTimeout`: from 200 stored mutations on, confirmed ones
    /// older than 30 s go even though no query has seen them; below 200 they stay.
    @Test func atTwoHundredStoredMutationsConfirmedOnesOlderThanThirtySecondsGo() {
        var (c, _) = connected()
        var events: [UInt64] = []
        for i in 0..<200 {
            let e = c.step(.user(write(UInt32(i), .create(EntityID(UInt32(i + 1)), .todos, []))), now: 0)
            for x in e { if case .send(.transact(let id, _, _)) = x { events.append(id) } }
        }
        #expect(events.count == 200)
        // 199 confirmed at t=1 s: still 200 stored, none older than 30 s yet.
        for (i, id) in events.prefix(199).enumerated() {
            _ = c.step(.received(.transactOk(eventID: id, write: WriteID(UInt32(i)), txID: UInt64(i + 1))), now: 1_000)
        }
        #expect(c.pending.count == 200)
        // The last one confirmed at t=31.5 s: the 199 confirmed at 1 s are older than 30 s and go.
        _ = c.step(.received(.transactOk(eventID: events[199], write: WriteID(199), txID: 200)), now: 31_500)
        #expect(c.pending.count == 1)
    }

    @Test func belowTwoHundredStoredMutationsConfirmedOnesStay() {
        var (c, _) = connected()
        var events: [UInt64] = []
        for i in 0..<199 {
            let e = c.step(.user(write(UInt32(i), .create(EntityID(UInt32(i + 1)), .todos, []))), now: 0)
            for x in e { if case .send(.transact(let id, _, _)) = x { events.append(id) } }
        }
        for (i, id) in events.enumerated() {
            _ = c.step(.received(.transactOk(eventID: id, write: WriteID(UInt32(i)), txID: UInt64(i + 1))), now: 1_000)
        }
        _ = c.step(.received(.refreshOk(.subscription(Self.sub), .empty, processedTxID: 0)), now: 60_000)
        #expect(c.pending.count == 199)
    }

    @Test func reconnectBackoffGrowsToTenSeconds() {
        var (c, _) = connected()
        var delays: [Int64] = []
        for _ in 0..<13 {
            for e in c.step(.disconnected) { if case .setTimer(_, let d) = e { delays.append(d) } }
            _ = c.step(.timerFired(InstantClient.reconnectTimer))
        }
        #expect(delays == [0, 1_000, 2_000, 3_000, 4_000, 5_000, 6_000, 7_000, 8_000, 9_000, 10_000, 10_000, 10_000])
    }

    @Test func nestedChildChangeReyieldsTheParentSubscription() {
        var c = InstantClient(context: .testing(Self.a), fullEntity: false, restoring: nil)
        let q = Query(.profiles, include: .reverse(.author))
        var store = EntityStore()
        _ = store.apply(.create(EntityID(1), .profiles, [FieldAssignment(.name, .string("Ada"))]), schema: .default)
        _ = store.apply(.create(EntityID(2), .posts, [FieldAssignment(.content, .string("old"))]), schema: .default)
        _ = store.apply(.link(EntityID(2), .author, EntityID(1)), schema: .default)
        let r = q.evaluate(store)
        #expect(r.roots == [EntityID(1)] && r.contains(EntityID(2)))
        _ = c.step(.network(.online)); _ = c.step(.connected); _ = c.step(.received(.initOk))
        _ = c.step(.user(.subscribe(Self.sub, q)))
        _ = c.step(.received(.addQueryOk(.subscription(Self.sub), r, processedTxID: 1)))
        let e = c.step(.user(write(0, .update(EntityID(2), .posts, [FieldAssignment(.content, .string("new"))]))))
        #expect(e.contains(.event(.subscriptionYielded(Self.sub, fromCache: false))))
        #expect(c.result(of: Self.sub)?.record(EntityID(2))?[.content] == .string("new"))
    }

    @Test func serverRejectsAnUpdateOfAMissingEntityInUpdateModeAsAWhole() {
        var s = InstantServer(clients: 1)
        _ = s.step(.clientConnected(Self.a))
        _ = s.step(.received(from: Self.a, .initialize))
        let steps = [InstantStep(.create(EntityID(1), .todos, []), upsert: false),
                     InstantStep(.update(EntityID(9), .todos, [FieldAssignment(.done, .bool(true))]), upsert: false)]
        let e = s.step(.received(from: Self.a, .transact(eventID: 7, write: WriteID(0), steps: steps)))
        #expect(e.count == 2)
        #expect(s.data.count == 0)   // all-or-nothing: the create did not happen either
    }

    @Test func restartWithPersistenceKeepsThePendingQueueAndWithoutLosesIt() {
        for persistence in [true, false] {
            var c = InstantClient(context: .testing(Self.a, persistence: persistence), fullEntity: false, restoring: nil)
            _ = c.step(.user(write(0, .create(EntityID(1), .todos, []))))
            let reborn = InstantClient(context: .testing(Self.a, persistence: persistence, incarnation: 1),
                                       fullEntity: false, restoring: c.durableState)
            #expect(reborn.pendingWrites == (persistence ? [WriteID(0)] : []))
        }
    }
}

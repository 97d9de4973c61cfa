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

    @Test func queryOnceFailsAtOnceWhileOfflineWithTheCachedResultMarkedStale() {
        var (c, _) = connected()
        _ = c.step(.network(.offline))
        #expect(c.step(.user(.queryOnce(QueryRequestID(1), Self.todos))) ==
                [.event(.queryOnceFailed(QueryRequestID(1), offline: true, hasStaleResult: true))])
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

import Foundation
import Testing
@testable import SyncSim

/// `pushPull` with seed 004's push-then-pull loop (`StrategyOptions.pushPullOrder`).
@Suite("PushPull push-then-pull")
struct PushPullOrderTests {
    typealias C = PushPullClient

    static func context() -> ClientContext {
        var c = ClientContext.testing()
        c.options.pushPullOrder = .pushThenPull
        return c
    }

    static func todo(_ title: String, done: Bool) -> EntityRecord { PushPullTests.todo(title, done: done) }

    /// A client in push-then-pull order that has pulled todo#1 and written `w` on it at 100.
    static func clientWithWrite(_ w: UserWrite) -> C {
        var c = PushPullStrategy().makeClient(Self.context(), restoring: nil)
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [RemoteRecord(entity: EntityID(1), serverKey: 1, record: Self.todo("a", done: false), updatedAt: 0)],
                                     deleted: [], timestamp: 1)), now: 10)
        _ = c.step(.user(.write(w)), now: 100)
        return c
    }

    static let edit = UserWrite(id: WriteID(0), ops: [.update(EntityID(1), .todos, [FieldAssignment(.done, .bool(true))])])

    @Test func aSyncPushesFirstThenPulls() {
        var c = Self.clientWithWrite(Self.edit)
        let fx = c.step(.timerFired(C.soonTimer), now: 600)
        let sent = fx.compactMap { if case .send(let m) = $0 { return m } else { return nil } }
        #expect(sent.count == 1)
        guard case .push(2, 1, let rows, 0)? = sent.first else { Issue.record("expected a push first, got \(sent)"); return }
        #expect(rows.map(\.entity) == [EntityID(1)])
        let answer = c.step(.received(.pushed(sync: 2, results: [PushResult(entity: EntityID(1), outcome: .applied(serverKey: 1))])), now: 700)
        #expect(answer.contains(.event(.writeConfirmed(WriteID(0)))))
        #expect(answer.contains(.send(.pull(sync: 2, since: 1))))
        #expect(c.phase == .pulling(2))
        _ = c.step(.received(.pulled(sync: 2, changes: [], deleted: [], timestamp: 2)), now: 800)
        #expect(c.phase == .idle)
        #expect(c.lastPulledAt == 2)
    }

    @Test func withNothingToPushASyncGoesStraightToThePull() {
        var c = PushPullStrategy().makeClient(Self.context(), restoring: nil)
        #expect(c.step(.network(.online), now: 0).contains(.send(.pull(sync: 1, since: nil))))
    }

    /// A pulled row merged into a locally changed row (changed while the sync ran): seed 004
    /// §5.2 `detectConflict` by record-level `updatedAt`.
    static func mergeDuringSync(remoteAt: Int64, remote: EntityRecord) -> (C, [ClientEffect<PushPullUp>]) {
        var c = PushPullStrategy().makeClient(Self.context(), restoring: nil)
        _ = c.step(.network(.online), now: 0)
        _ = c.step(.received(.pulled(sync: 1, changes: [RemoteRecord(entity: EntityID(1), serverKey: 1, record: Self.todo("a", done: false), updatedAt: 0)],
                                     deleted: [], timestamp: 1)), now: 10)
        _ = c.step(.timerFired(C.periodicTimer), now: 1_000)          // nothing to push: pull #2 sent
        #expect(c.phase == .pulling(2))
        _ = c.step(.user(.write(Self.edit)), now: 1_010)               // local row stamped 1010
        let fx = c.step(.received(.pulled(sync: 2, changes: [RemoteRecord(entity: EntityID(1), serverKey: 1, record: remote, updatedAt: remoteAt)],
                                          deleted: [], timestamp: 2)), now: 1_050)
        return (c, fx)
    }

    @Test func equalTimestampsWithDifferentDataAreStoredForTheUser() {
        let (c, fx) = Self.mergeDuringSync(remoteAt: 1_010, remote: Self.todo("theirs", done: false))
        #expect(fx.contains { if case .event(.conflictRaised(_, EntityID(1))) = $0 { return true } else { return false } })
        #expect(c.conflicts.map(\.entity) == [EntityID(1)])
        #expect(c.records[EntityID(1)]?.record == Self.todo("a", done: true))
        #expect(c.pendingWrites == [WriteID(0)])
    }

    @Test func aNewerServerRowWinsWithoutAPrompt() {
        let (c, fx) = Self.mergeDuringSync(remoteAt: 2_000, remote: Self.todo("theirs", done: false))
        #expect(!fx.contains { if case .event(.conflictRaised) = $0 { return true } else { return false } })
        // Never pushed, so never applied: "discarded" is true and the user is told.
        #expect(fx.contains(.event(.writeRejected(WriteID(0), .conflictDiscarded))))
        #expect(c.records[EntityID(1)]?.record == Self.todo("theirs", done: false))
        #expect(c.records[EntityID(1)]?.status == .synced)
        #expect(c.pendingWrites.isEmpty)
    }

    @Test func aNewerLocalRowIsKeptWholeForTheNextPush() {
        let (c, fx) = Self.mergeDuringSync(remoteAt: 500, remote: Self.todo("theirs", done: false))
        #expect(!fx.contains { if case .event(.conflictRaised) = $0 { return true } else { return false } })
        #expect(c.records[EntityID(1)]?.record == Self.todo("a", done: true))
        #expect(c.records[EntityID(1)]?.status == .updated)
        #expect(c.pendingWrites == [WriteID(0)])
        // The row is pushed again at once (it changed while the sync ran).
        #expect(fx.contains { if case .send(.push(3, 2, _, _)) = $0 { return true } else { return false } })
    }

    /// Seed 004's backend judges each row; it does not refuse a whole push that missed a change
    /// (WatermelonDB's backend does: `PushPullTests.serverRefusesAPushOfARowChangedAfterLastPulledAt`).
    @Test func theServerJudgesRowsInsteadOfRefusingThePush() {
        let (s, fx) = PushPullTests.pushOfARowChangedAfterLastPull(order: .pushThenPull)
        let e = EntityID(1)
        #expect(!fx.contains { if case .send(_, .pushRejected) = $0 { return true } else { return false } })
        #expect(fx.contains { if case .send(_, .pushed(4, [PushResult(entity: e, outcome: .applied(serverKey: 1))], 0)) = $0 { return true } else { return false } })
        #expect(s.data[e]?[.title] == .string("c"))
    }

    @Test func theScenarioOptionRoundTrips() throws {
        var o = SimulationOptions()
        o.strategy.pushPullOrder = .pushThenPull
        let data = try JSONEncoder().encode(o)
        #expect(String(decoding: data, as: UTF8.self).contains("\"pushPullOrder\":\"pushThenPull\""))
        #expect(try JSONDecoder().decode(SimulationOptions.self, from: data).strategy.pushPullOrder == .pushThenPull)
        // The default is not written: files that do not name it keep meaning WatermelonDB's order.
        #expect(!String(decoding: try JSONEncoder().encode(SimulationOptions()), as: UTF8.self).contains("pushPullOrder"))
    }

    @Test func anUnknownOrderIsAnErrorNamingTheAcceptedOnes() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(SimulationOptions.self, from: Data(#"{"clients":2,"persistence":true,"pushPullOrder":"sideways"}"#.utf8)) }
        do {
            _ = try JSONDecoder().decode(SimulationOptions.self, from: Data(#"{"clients":2,"persistence":true,"pushPullOrder":"sideways"}"#.utf8))
        } catch let DecodingError.dataCorrupted(ctx) {
            #expect(ctx.debugDescription == "unknown order 'sideways'; expected one of: pullThenPush, pushThenPull")
            #expect(ctx.codingPath.map(\.stringValue) == ["pushPullOrder"])
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func contractHoldsOnGeneratedSeedsInPushThenPullOrder() throws {
        let contract = PushPullStrategy().info.contract
        for seed: UInt64 in 0..<20 {
            var schedule = WorkloadGenerator().generate(seed: seed)
            schedule.options.strategy.pushPullOrder = .pushThenPull
            let result = try Simulator.run(PushPullStrategy(), schedule, seed: seed)
            let broken = result.violations.filter { contract.contains($0.invariant) }
            #expect(broken.isEmpty, "seed \(seed): \(broken.map(\.description))")
        }
    }
}

import Testing
@testable import SyncSim

/// The `pushPull` server applies a back-office write in place and undoes it if a step is
/// refused (`PushPullServer.AdminUndo`): a refused write leaves every part of the server as it
/// was, and an accepted one leaves it as applying the steps to a copy does (what the server
/// did before, and still does without an undo log).
@Suite("PushPull admin write")
struct PushPullAdminWriteTests {
    /// Everything a back-office write may change, in comparable form.
    struct Snapshot: Equatable {
        var data: EntityStore
        var meta: [String]
        var tombstones: [UInt64?]
        var stamps: [String]
        var version: UInt64
        var nextServerKey: UInt64
        var byServerKey: [UInt64: EntityID]
        var txID: UInt64

        init(_ s: PushPullServer) {
            data = s.data
            // Trailing empty slots are no difference (a map grown and rolled back keeps them).
            var m = s.meta.slots.map { $0.map { "\($0.serverKey) \(String(describing: $0.clientKey)) \($0.updatedAt) \($0.version)" } }
            while m.last == .some(nil) { m.removeLast() }
            meta = m.map { $0 ?? "-" }
            var t = s.tombstones.slots
            while t.last == .some(nil) { t.removeLast() }
            tombstones = t
            stamps = s.stamps.map { "\($0.version):\($0.entity.raw)" }
            version = s.version
            nextServerKey = s.nextServerKey
            byServerKey = s.byServerKey
            txID = s.txID
        }
    }

    struct Draw {
        var state: UInt64
        mutating func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(max(n, 1)))
        }
    }

    /// One random step over entities 1…40: often valid, sometimes refused (a create of an
    /// existing entity, a link to a missing one, an update of a deleted one).
    func op(_ d: inout Draw) -> Op {
        let e = EntityID(UInt32(1 + d.below(40)))
        let ns: NamespaceID = [.todos, .profiles, .posts][d.below(3)]
        switch d.below(12) {
        case 0..<4: return .create(e, ns, [])
        case 4..<7: return .update(e, .todos, [FieldAssignment(.title, .string(["a", "b"][d.below(2)]))])
        case 7: return .delete(e, ns)
        default: return .link(e, LinkID(UInt8(d.below(2))), EntityID(UInt32(1 + d.below(40))))
        }
    }

    @Test func aRefusedWriteLeavesTheServerAsItWasAndAnAcceptedOneAsOnACopy() {
        var refused = 0, accepted = 0
        for seed in UInt64(1)...8 {
            var d = Draw(state: seed)
            var s = PushPullStrategy().makeServer(.testing())
            for k in 0..<120 {
                let ops = (0..<(1 + d.below(3))).map { _ in op(&d) }
                let before = Snapshot(s)
                var copy = s
                let err = copy.applyAdmin(ops, now: Int64(k))
                let fx = s.step(.adminWrite(UserWrite(id: WriteID(UInt32(k)), ops: ops)), now: Int64(k))
                #expect(s.undo == nil)
                if err != nil {
                    refused += 1
                    #expect(Snapshot(s) == before, "seed \(seed) step \(k): \(ops)")
                    #expect(fx.contains { if case .refused = $0 { return true } else { return false } })
                } else {
                    accepted += 1
                    var want = Snapshot(copy)
                    want.txID += 1
                    #expect(Snapshot(s) == want, "seed \(seed) step \(k): \(ops)")
                }
            }
        }
        #expect(refused > 100 && accepted > 100, "refused \(refused), accepted \(accepted)")
    }
}

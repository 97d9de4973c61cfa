import Testing
@testable import SyncSim

/// The operation queue keeps its list of outstanding writes (`OperationQueue.outstanding`, read
/// by the oracles after every yield) equal to the list computed from the rows, through every
/// kind of change, including writes whose rows are not adjacent.
@Suite("PushPull queue")
struct PushPullQueueTests {
    @Test func theKeptOutstandingWritesAreTheRowsOnes() {
        var state: UInt64 = 7
        func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var q = OperationQueue()
        var checks = 0
        for step in 0..<2_000 {
            let w = WriteID(UInt32(1 + below(30)))
            let e = EntityID(UInt32(1 + below(8)))
            switch below(7) {
            case 0, 1, 2: q.enqueue(write: w, entity: e, kind: .update)
            case 3: _ = q.takeForSending([e, EntityID(UInt32(1 + below(8)))])
            case 4: _ = q.succeed([w, WriteID(UInt32(1 + below(30)))], on: e)
            case 5: if below(4) == 0 { q.markFailed("x") } else { q.markPending(on: below(2) == 0 ? nil : e) }
            default: _ = below(3) == 0 ? q.discard(on: e) : q.discard([w])
            }
            #expect(q.outstandingWrites == q.computeOutstanding(), "step \(step)")
            checks += q.outstandingWrites.isEmpty ? 0 : 1
        }
        #expect(checks > 500)
    }
}

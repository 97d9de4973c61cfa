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

    /// `outstandingWriteCount` (asked after every input) is the kept list's length while every
    /// write's rows are enqueued together, as in every run; it must be the count the walk of
    /// the queue gave (`countRuns`) through every change. A write enqueued again after other
    /// writes (a hand-driven queue only) marks the queue `scattered`, and the count walks the
    /// queue again: still the walk's count.
    @Test func theCountIsTheWalksCount() {
        for scattered in [false, true] {
            var state: UInt64 = scattered ? 11 : 5
            func below(_ n: Int) -> Int {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Int((state >> 33) % UInt64(n))
            }
            var q = OperationQueue()
            var next: UInt32 = 1
            var kept = 0, nonzero = 0
            for step in 0..<3_000 {
                let e = EntityID(UInt32(1 + below(8)))
                let old = WriteID(UInt32(1 + below(Int(next))))
                switch below(7) {
                case 0, 1, 2:
                    if scattered && below(3) == 0 {
                        q.enqueue(write: old, entity: e, kind: .update)
                    } else {
                        let w = WriteID(next)
                        next += 1
                        for k in 0...below(3) { q.enqueue(write: w, entity: EntityID(UInt32(1 + (Int(e.raw) + k) % 8)), kind: .update) }
                    }
                case 3: _ = q.takeForSending([e, EntityID(UInt32(1 + below(8)))])
                case 4: _ = q.succeed([old, WriteID(UInt32(1 + below(Int(next))))], on: e)
                case 5: if below(4) == 0 { q.markFailed("x") } else { q.markPending(on: below(2) == 0 ? nil : e) }
                default: _ = below(3) == 0 ? q.discard(on: e) : q.discard([old])
                }
                #expect(q.outstandingWriteCount == q.countRuns(), "step \(step)")
                if !scattered { #expect(q.outstandingWriteCount == q.outstandingWrites.count, "step \(step)") }
                if !q.scattered { kept += 1 }
                if q.outstandingWriteCount > 1 { nonzero += 1 }
            }
            #expect(nonzero > 1_000)
            if scattered { #expect(q.scattered) } else { #expect(kept == 3_000) }
        }
    }
}

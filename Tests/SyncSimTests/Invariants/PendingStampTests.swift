import Testing
@testable import SyncSim

/// The shortcuts the view oracles take to skip work on a yield: `stampPending` leaving the
/// stamps as they are when a pending list holds the very writes stamped last (same storage or
/// equal contents, whichever client's), and `CachedRoots.refill` leaving equal lists as they
/// are. Each is checked against what it stands for after every step of random sequences: the
/// stamped writes are exactly the list's, the cache holds exactly what it was given.
@Suite struct PendingStampTests {
    /// The writes `pendingStamps` marks with `stamp` (ids below `limit`).
    static func stamped(_ m: Monitor, _ stamp: UInt64, below limit: Int) -> Set<WriteID> {
        var s = Set<WriteID>()
        for i in 0..<min(limit, m.pendingStamps.count) where m.pendingStamps[i] == stamp { s.insert(WriteID(UInt32(i))) }
        return s
    }

    @Test func theStampedWritesAreExactlyTheLastListsWrites() {
        var m = Monitor(clients: 3, schema: .default)
        var rng = SimRandom(seed: 5)
        var previous: [WriteID] = []
        var skipped = 0
        for round in 0..<4000 {
            let c = ClientID(rng.int(in: 0...2))
            var list: [WriteID]
            switch rng.int(in: 0...5) {
            case 0: list = previous                                   // the same storage
            case 1, 2: list = previous.map { WriteID($0.raw) }        // equal contents, new storage
            case 3 where !previous.isEmpty:                           // the same writes, reordered
                list = previous
                list.swapAt(0, list.count - 1)
            default:                                                   // other writes
                list = (0..<rng.int(in: 0...6)).map { _ in WriteID(UInt32(rng.int(in: 0...40))) }
            }
            let before = m.pendingStamp
            let stamp = m.stampPending(c, list)
            if stamp == before { skipped += 1 }
            #expect(Self.stamped(m, stamp, below: 64) == Set(list), "round \(round)")
            #expect(stamp == m.pendingStamp)
            previous = list
        }
        #expect(skipped > 1000, "equal lists should not be stamped again (\(skipped) skipped)")
    }

    @Test func refillHoldsWhatItWasGivenAndKeepsEqualLists() {
        var cache = Monitor.CachedRoots()
        var rng = SimRandom(seed: 9)
        var roots: [EntityID] = []
        var open: [Monitor.OpenWrite] = []
        for round in 0..<3000 {
            switch rng.int(in: 0...4) {
            case 0: roots = (0..<rng.int(in: 0...8)).map { _ in EntityID(UInt32(rng.int(in: 0...20))) }
            case 1: open = (0..<rng.int(in: 0...4)).map { _ in
                        Monitor.OpenWrite(intent: Int32(rng.int(in: 0...9)), write: WriteID(UInt32(rng.int(in: 0...9)))) }
            case 2 where !open.isEmpty: open[open.count - 1].write = WriteID(99)   // the write differs, not the intent
            case 3: roots = roots.map { EntityID($0.raw) }                        // equal, new storage
            default: break
            }
            let held = cache.roots.withUnsafeBufferPointer { $0.baseAddress }
            let wasEqual = cache.roots == roots
            cache.refill(roots: roots, open: open)
            #expect(cache.roots == roots, "round \(round)")
            #expect(cache.open.map(\.intent) == open.map(\.intent) && cache.open.map(\.write) == open.map(\.write), "round \(round)")
            if wasEqual && !roots.isEmpty {
                #expect(cache.roots.withUnsafeBufferPointer { $0.baseAddress } == held, "an equal list is kept, not refilled")
            }
            let shares = cache.roots.withUnsafeBufferPointer { a in roots.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
            #expect(!shares || roots.isEmpty, "the cache holds its own copy, never the client's buffer")
        }
    }
}

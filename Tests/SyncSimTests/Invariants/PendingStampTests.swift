import Testing
@testable import SyncSim

/// The shortcuts the view oracles take to skip work on a yield: `stampPending` leaving the
/// stamps as they are when a pending list holds the very writes stamped last (same storage or
/// equal contents, whichever client's), and `CachedRoots.refill` leaving equal lists as they
/// are. Each is checked against what it stands for after every step of random sequences: the
/// stamped writes are exactly the list's, the cache holds exactly what it was given.
@Suite struct PendingStampTests {
    /// Whether `stampPending` left write `w` marked as in the list it stamped last, asked as
    /// `checkOwnWrites` asks it (`closeUnqueued`): a write id above the dense tables is looked
    /// up in the list itself, every other one by its stamp.
    static func marked(_ m: Monitor, _ w: WriteID, stamp: UInt64, list: [WriteID]) -> Bool {
        let k = Int(w.raw)
        if k >= Monitor.denseLimit { return list.contains(w) }
        return k < m.pendingStamps.count && m.pendingStamps[k] == stamp
    }

    /// After every call, each write id (those the lists use, a huge id and a few never used) is
    /// marked exactly when the list just given holds it, an independent model of the answer
    /// rather than a re-read of what the call stored. The stamp is left as it was only when the
    /// list holds the very writes of the list stamped last, in the same order (a skip taken on
    /// anything else would leave stale marks, which the model then catches on a later list).
    @Test func theStampedWritesAreExactlyTheLastListsWrites() {
        var m = Monitor(clients: 3, schema: .default)
        var rng = SimRandom(seed: 5)
        var previous: [WriteID] = []
        var lastStamped: [WriteID]? = nil
        var skipped = 0
        let huge = WriteID(UInt32(Monitor.denseLimit + 7))
        let probes = (0...44).map { WriteID(UInt32($0)) } + [huge, WriteID(UInt32.max)]
        for round in 0..<4000 {
            let c = ClientID(rng.int(in: 0...2))
            var list: [WriteID]
            switch rng.int(in: 0...6) {
            case 0: list = previous                                   // the same storage
            case 1, 2: list = previous.map { WriteID($0.raw) }        // equal contents, new storage
            case 3 where previous.count > 1:                          // the same writes, reordered
                list = previous
                list.swapAt(0, list.count - 1)
                if list == previous { list.append(WriteID(3)) }
            case 4 where !previous.isEmpty:                           // one write replaced in place
                list = previous
                list[rng.int(in: 0...(list.count - 1))] = WriteID(UInt32(rng.int(in: 0...40)))
            case 5: list = [huge] + (0..<rng.int(in: 0...3)).map { _ in WriteID(UInt32(rng.int(in: 0...40))) }
            default:                                                   // other writes
                list = (0..<rng.int(in: 0...6)).map { _ in WriteID(UInt32(rng.int(in: 0...40))) }
            }
            let before = m.pendingStamp
            let stamp = m.stampPending(c, list)
            if stamp == before {
                skipped += 1
                #expect(lastStamped == list, "round \(round): the stamps were kept for a list other than the one stamped last")
            } else {
                lastStamped = list
            }
            let wrong = probes.filter { Self.marked(m, $0, stamp: stamp, list: list) != list.contains($0) }
            #expect(wrong.isEmpty, "round \(round): \(wrong) marked wrongly for \(list)")
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

import Testing
@testable import SyncSim

/// The monitor's own copy of what a subscription showed (`ShownEntries`) and the dense write
/// table of the end-of-run oracles (`WriteTable`): the copy must list as changed exactly the
/// entries the old walk against the result itself listed, and equal the result afterwards, for
/// any sequence of results (shared records, replaced ones, many or few entries coming and going,
/// and results that do not ascend); the table must read back what was written for any id.
@Suite struct ShownEntriesTests {
    /// The walk `checkYield` made before the copy existed (against the previous result itself).
    static func oldWalk(_ was: [QueryResult.Entry], _ now: [QueryResult.Entry]) -> [EntityID] {
        var changed: [EntityID] = []
        var j = 0
        for i in 0..<now.count {
            let id = now[i].id
            while j < was.count && was[j].id < id { j += 1 }
            if j < was.count && was[j].id == id && was[j].record == now[i].record { continue }
            changed.append(id)
        }
        return changed
    }

    static func record(_ v: Int) -> EntityRecord {
        EntityRecord(namespace: NamespaceID(0), values: [.int(v), nil], links: [nil], manyLinks: [])
    }

    @Test func listsWhatTheOldWalkListedAndEqualsTheResult() {
        var rng = SimRandom(seed: 7)
        var previous: [QueryResult.Entry] = []
        var copy = ShownEntries(copying: previous)
        for round in 0..<3000 {
            // The next result: from the previous one, records kept (shared), replaced by equal
            // or different values, entries removed and inserted; now and then many at once, or
            // out of order.
            var next: [QueryResult.Entry] = []
            for e in previous {
                switch rng.int(in: 0...9) {
                case 0: continue                                                  // removed
                case 1: next.append(.init(id: e.id, record: Self.record(rng.int(in: 0...3))))  // replaced
                case 2: var r = e.record; r.values[1] = .int(1); next.append(.init(id: e.id, record: r))  // edited in place
                default: next.append(e)                                           // shared
                }
            }
            let inserts = round % 50 == 0 ? 40 : rng.int(in: 0...2)
            for _ in 0..<inserts {
                let id = EntityID(UInt32(rng.int(in: 0...300)))
                if !next.contains(where: { $0.id == id }) { next.append(.init(id: id, record: Self.record(rng.int(in: 0...3)))) }
            }
            next.sort { $0.id < $1.id }
            if round % 97 == 0, next.count > 2 { next.swapAt(0, next.count - 1) }   // not ascending
            if round % 211 == 0, let f = next.first { next.append(f) }             // a duplicate id
            var changed: [EntityID] = []
            copy.sync(to: next, changed: &changed)
            #expect(changed == Self.oldWalk(previous, next), "round \(round)")
            #expect(copy.entries == next, "round \(round)")
            previous = next
        }
    }

    /// `sync`'s walk by storage with its few direct edits, against the general merge
    /// (`syncByMerge`) it falls back to: the same ids listed and the same copy, over results
    /// with few and many edits (runs of entries leaving and joining), equal records in new
    /// storage, results that empty and refill, and results that do not ascend.
    @Test func directEditsMatchTheMerge() {
        var rng = SimRandom(seed: 11)
        var previous: [QueryResult.Entry] = []
        var fast = ShownEntries(copying: previous)
        var merged = ShownEntries(copying: previous)
        for round in 0..<4000 {
            var next: [QueryResult.Entry] = []
            let churn = round % 7 == 0 ? 4 : 40
            for e in previous {
                switch rng.int(in: 0...churn) {
                case 0: continue
                case 1: next.append(.init(id: e.id, record: Self.record(rng.int(in: 0...3))))
                case 2: next.append(.init(id: e.id, record: EntityRecord(namespace: e.record.namespace, values: e.record.values,
                                                                          links: e.record.links, manyLinks: e.record.manyLinks)))
                case 3: var r = e.record; r.values[0] = .int(9); next.append(.init(id: e.id, record: r))
                default: next.append(e)
                }
            }
            if round % 301 == 0 { next.removeAll() }
            let inserts = round % 13 == 0 ? rng.int(in: 0...60) : rng.int(in: 0...3)
            for _ in 0..<inserts {
                let id = EntityID(UInt32(rng.int(in: 0...400)))
                if !next.contains(where: { $0.id == id }) { next.append(.init(id: id, record: Self.record(rng.int(in: 0...3)))) }
            }
            next.sort { $0.id < $1.id }
            if round % 89 == 0, next.count > 2 { next.swapAt(1, next.count - 1) }
            var a: [EntityID] = [EntityID(9999)], b: [EntityID] = [EntityID(9999)]   // appended to, not replaced
            fast.sync(to: next, changed: &a)
            merged.syncByMerge(to: next, changed: &b)
            #expect(a == b, "round \(round)")
            #expect(fast.entries == merged.entries && fast.entries == next, "round \(round)")
            previous = next
        }
    }

    /// A result patched in place, as the built-ins patch their views (entries left alone keep
    /// their bytes, so `sync` passes over them a block at a time), with records replaced by
    /// equal ones in new storage (which the copy adopts), removed and inserted, long and short:
    /// the same list as the old walk and a copy equal to the result, every round.
    @Test func resultsPatchedInPlaceMatchTheOldWalk() {
        var rng = SimRandom(seed: 23)
        var now: [QueryResult.Entry] = (0..<300).map { .init(id: EntityID(UInt32($0 * 2)), record: Self.record($0 % 4)) }
        var copy = ShownEntries(copying: now)
        var previous = Array(copy.entries)
        for round in 0..<2000 {
            for _ in 0..<rng.int(in: 0...3) {
                guard !now.isEmpty else { break }
                let k = rng.int(in: 0...(now.count - 1))
                switch rng.int(in: 0...4) {
                case 0: now[k].record = Self.record(rng.int(in: 0...3))
                case 1: let r = now[k].record
                        // `map`, not `Array(_:)`: an array built from an array shares its storage.
                        now[k].record = EntityRecord(namespace: r.namespace, values: r.values.map { $0 }, links: r.links.map { $0 }, manyLinks: r.manyLinks)
                case 2: now.remove(at: k)
                default:
                    let id = EntityID(UInt32(rng.int(in: 0...700)))
                    if let at = now.firstIndex(where: { $0.id >= id }) {
                        if now[at].id != id { now.insert(.init(id: id, record: Self.record(1)), at: at) }
                    } else { now.append(.init(id: id, record: Self.record(1))) }
                }
            }
            if round % 400 == 399 { now = now.map { QueryResult.Entry(id: $0.id, record: $0.record) } }   // copied whole
            var changed: [EntityID] = []
            copy.sync(to: now, changed: &changed)
            #expect(changed == Self.oldWalk(previous, now), "round \(round)")
            #expect(copy.entries == now, "round \(round)")
            previous = Array(copy.entries)
        }
    }

    /// The bytes of an entry that are neither its id, its namespace nor its record's box
    /// (padding), found from the layout.
    static func paddingOffsets() -> [Int] {
        typealias E = QueryResult.Entry
        typealias R = EntityRecord
        var used = Set<Int>()
        func mark(_ at: Int?, _ size: Int) { if let at { for b in at..<(at + size) { used.insert(b) } } }
        let rec = MemoryLayout<E>.offset(of: \E.record)!
        mark(MemoryLayout<E>.offset(of: \E.id), MemoryLayout<EntityID>.size)
        mark(MemoryLayout<R>.offset(of: \R.namespace).map { rec + $0 }, MemoryLayout<NamespaceID>.size)
        mark(MemoryLayout<R>.offset(of: \R.slots).map { rec + $0 }, MemoryLayout<EntityRecord.Slots>.size)
        return (0..<MemoryLayout<E>.size).filter { !used.contains($0) }
    }

    /// A client that copied its entries (same records, other padding bytes) defeats the block
    /// compare once: the walk takes the client's bytes for the blocks it found the same
    /// storage, so the next yield over the same entries passes them a block at a time again.
    /// (Without that, every later yield walked the result entry by entry.)
    @Test func blocksPassAgainAfterTheClientsBytesChanged() {
        let pad = Self.paddingOffsets()
        guard !pad.isEmpty, ShownEntries.layout != nil else { return }   // nothing to disturb
        var now = (0..<(ShownEntries.block * 6 + 3)).map { QueryResult.Entry(id: EntityID(UInt32($0 * 2)), record: Self.record($0)) }
        var copy = ShownEntries(copying: now)
        var changed: [EntityID] = []
        copy.sync(to: now, changed: &changed)
        #expect(changed.isEmpty && copy.blockPasses == 6, "untouched bytes pass block by block (\(copy.blockPasses))")
        // The client's padding changes (as a copy of its entries may leave it).
        now.withUnsafeMutableBytes { raw in
            let stride = MemoryLayout<QueryResult.Entry>.stride
            for k in 0..<(raw.count / stride) { for b in pad { raw[k * stride + b] = UInt8(truncatingIfNeeded: 0x5A &+ k) } }
        }
        let before = copy.blockPasses
        copy.sync(to: now, changed: &changed)
        #expect(changed.isEmpty && copy.entries == now)
        #expect(copy.blockPasses - before <= 1, "the changed bytes fail the block compare")
        let after = copy.blockPasses
        copy.sync(to: now, changed: &changed)
        #expect(changed.isEmpty && copy.entries == now)
        #expect(copy.blockPasses - after == 6, "the blocks pass again (\(copy.blockPasses - after))")
    }

    @Test func theCopyIsNotTheResultsBuffer() {
        let now = [QueryResult.Entry(id: EntityID(1), record: Self.record(1))]
        let copy = ShownEntries(copying: now)
        let same = now.withUnsafeBufferPointer { a in copy.entries.withUnsafeBufferPointer { b in a.baseAddress == b.baseAddress } }
        #expect(!same, "a memo sharing the client's buffer makes the client's next in-place patch copy it whole")
    }

    @Test func writeTableReadsBackAnyID() {
        var t = WriteTable<Int32>()
        #expect(t[WriteID(3)] == nil)
        t[WriteID(3)] = 7
        t[WriteID(UInt32.max)] = 2
        t[WriteID(0)] = 0
        #expect(t[WriteID(3)] == 7)
        #expect(t[WriteID(UInt32.max)] == 2)
        #expect(t[WriteID(0)] == 0)
        #expect(t[WriteID(1)] == nil)
        #expect(t[WriteID(1 << 24)] == nil)
        t[WriteID(3)] = nil
        #expect(t[WriteID(3)] == nil)
    }
}

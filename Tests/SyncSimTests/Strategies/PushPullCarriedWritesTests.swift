import Testing
@testable import SyncSim

/// `PushPullUp.carriedWrites` (a bit set over small write ids, a hashed set for large ones) lists
/// exactly what a hashed set in row order lists: each write once, in the order first carried.
@Suite("PushPull carried writes")
struct PushPullCarriedWritesTests {
    static func reference(_ rows: [PushRecord]) -> [WriteID] {
        var out: [WriteID] = []
        var seen = Set<WriteID>()
        for r in rows { for w in r.writes where seen.insert(w).inserted { out.append(w) } }
        return out
    }

    @Test func sameAsAHashedSetInRowOrder() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ n: UInt64) -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state % n
        }
        let record = EntityRecord(namespace: .todos, schema: .default)
        for round in 0..<400 {
            // Small ids (a run's), ids near the bit set's bound, and huge ones (hashed).
            let span: UInt64 = [40, 5_000, 20_000, 1 << 31][round % 4]
            var rows: [PushRecord] = []
            for e in 0..<Int(next(12)) {
                let writes = (0..<Int(next(4))).map { _ in WriteID(UInt32(next(span))) }
                rows.append(PushRecord(entity: EntityID(UInt32(e)), clientKey: nil, serverKey: nil, status: .updated,
                                       record: record, updatedAt: 1, writes: writes, force: false))
            }
            let m = PushPullUp.push(sync: 1, lastPulledAt: 0, records: rows, batch: 0)
            #expect(m.carriedWrites == Self.reference(rows), "round \(round)")
        }
        #expect(PushPullUp.pull(sync: 1, since: nil).carriedWrites.isEmpty)
    }

    /// The server's applied writes go through the same `firstOccurrences`.
    @Test func firstOccurrencesKeepsEachWriteWhereItFirstOccurs() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        for round in 0..<400 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            let span: UInt64 = [3, 100, 30_000, 1 << 32 - 1][round % 4]
            let ws = (0..<Int(state % 40)).map { k in WriteID(UInt32((state >> UInt64(k % 32)) % span)) }
            var seen = Set<WriteID>()
            #expect(PushPullUp.firstOccurrences(ws) == ws.filter { seen.insert($0).inserted }, "round \(round)")
        }
    }
}

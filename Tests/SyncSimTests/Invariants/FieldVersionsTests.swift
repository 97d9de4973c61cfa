import Testing
@testable import SyncSim

/// `FieldVersions.note` reading the value through a pointer (as `noteVersions` does, in place)
/// keeps the same versions as noting a copy of it, for values that recur and strings equal in
/// other storage.
@Suite struct FieldVersionsTests {
    @Test func notingInPlaceKeepsTheSameVersions() {
        var byValue = FieldVersions(stride: 4)
        var inPlace = FieldVersions(stride: 4)
        var rng = SimRandom(seed: 3)
        func value() -> FieldValue {
            switch rng.index(3) {
            case 0: return .int(rng.index(4))
            case 1: return .bool(rng.index(2) == 0)
            default: return .string(String(repeating: "v", count: 20) + String(rng.index(4)))   // heap storage, rebuilt each time
            }
        }
        var keys: [UInt64] = []
        for tx in 0..<4_000 {
            let key = Monitor.key(EntityID(UInt32(rng.index(20))), FieldID(UInt8(rng.index(4))))
            keys.append(key)
            let v = value()
            byValue.note(key, v, tx: Int32(tx))
            withUnsafePointer(to: v) { inPlace.note(key, $0, tx: Int32(tx)) }
        }
        var probes = 0
        for key in keys {
            for v: FieldValue in [.int(0), .int(3), .bool(true), .string(String(repeating: "v", count: 20) + "2")] {
                let a = byValue.range(of: v, key, initial: nil), b = inPlace.range(of: v, key, initial: nil)
                #expect(a?.oldest == b?.oldest && a?.newest == b?.newest)
                #expect(byValue.held(key, from: 100, before: 3_000, initial: nil) == inPlace.held(key, from: 100, before: 3_000, initial: nil))
                if a != nil { probes += 1 }
            }
        }
        #expect(probes > 1_000)
    }
}

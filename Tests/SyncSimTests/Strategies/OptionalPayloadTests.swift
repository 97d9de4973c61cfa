import Testing
@testable import SyncSim

/// `OptionalPayload.read` reads the very element, for the element types it serves (rows and
/// records: structs that own arrays) and a plain one, at every place of a buffer with gaps.
@Suite("Optional payload")
struct OptionalPayloadTests {
    @Test func readsTheElementInPlace() {
        var recs: [EntityRecord?] = []
        var ints: [Int?] = []
        for i in 0..<40 {
            if i % 3 == 0 { recs.append(nil); ints.append(nil); continue }
            var r = EntityRecord(namespace: .todos, schema: .default)
            r[.title] = .string(String(repeating: "t", count: i))
            recs.append(r)
            ints.append(i * 7)
        }
        recs.withUnsafeBufferPointer { b in
            for k in b.indices where b[k] != nil {
                #expect(OptionalPayload.read(b, k) { $0.pointee } == recs[k]!)
                #expect(OptionalPayload.read(b, k) { $0.pointee.values == recs[k]!.values })
            }
        }
        ints.withUnsafeBufferPointer { b in
            for k in b.indices where b[k] != nil { #expect(OptionalPayload.read(b, k) { $0.pointee } == ints[k]!) }
        }
    }
}

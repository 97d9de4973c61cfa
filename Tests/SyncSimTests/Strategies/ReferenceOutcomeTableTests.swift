import Testing
@testable import SyncSim

/// `ReferenceOutcomeTable` (dense by id, a dictionary past `denseLimit`) against the dictionary it
/// replaced, under random sets, removals and reads of small ids, ids around the limit and the
/// largest ids.
@Suite("Reference outcome table")
struct ReferenceOutcomeTableTests {
    @Test func readsAsTheDictionaryDoes() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: UInt64) -> UInt64 {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return state % n
        }
        func id() -> WriteID {
            switch next(4) {
            case 0: return WriteID(UInt32(next(200)))
            case 1: return WriteID(UInt32(ReferenceOutcomeTable.denseLimit) - 3 + UInt32(next(6)))
            case 2: return WriteID(UInt32.max - UInt32(next(3)))
            default: return WriteID(UInt32(next(5_000)))
            }
        }
        let outcomes: [ReferenceOutcome?] = [nil, .applied(version: 3), .applied(version: 9), .refused(.missing(EntityID(2))),
                                             .refused(.invalid("stamp is not the sender's clock"))]
        var table = ReferenceOutcomeTable()
        var model: [WriteID: ReferenceOutcome] = [:]
        for step in 0..<20_000 {
            let w = id()
            if next(3) == 0 {
                let o = outcomes[Int(next(UInt64(outcomes.count)))]
                table[w] = o
                model[w] = o
            }
            #expect(table[w] == model[w], "step \(step): \(w)")
            if table[w] != model[w] { return }
        }
        for (w, o) in model { #expect(table[w] == o) }
    }
}

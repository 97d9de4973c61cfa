import Testing
@testable import SyncSim

@Suite struct StableHasherTests {
    @Test func fnv1aKnownAnswers() {
        // FNV-1a 64 of the empty input is the offset basis; of "a" it is 0xaf63dc4c8601ec8c.
        #expect(StableHasher().value == 0xcbf2_9ce4_8422_2325)
        var h = StableHasher()
        h.byte(UInt8(ascii: "a"))
        #expect(h.value == 0xaf63_dc4c_8601_ec8c)
    }

    @Test func stringsAreLengthPrefixed() {
        var a = StableHasher(); a.combine("ab"); a.combine("c")
        var b = StableHasher(); b.combine("a"); b.combine("bc")
        #expect(a.value != b.value)
    }
}

import Testing
@testable import SyncSim

@Suite struct StableHasherTests {
    /// The definition, computed independently: state₀ = 0xcbf29ce484222325, a word w makes the
    /// state (rotl(state, 5) ^ w) × 0x517cc1b727220a95 (mod 2⁶⁴), and the value is MurmurHash3's
    /// fmix64 of the state. (Trace hashes identify runs across processes: they are pinned.)
    @Test func knownAnswers() {
        #expect(StableHasher().value == 0xefd0_1f60_ba99_2926)
        var h = StableHasher()
        h.byte(UInt8(ascii: "a"))
        #expect(h.value == 0x5c51_7ab4_b3eb_f033)
        // A byte, a Bool and every integer width are one word of the same value.
        var a = StableHasher(), b = StableHasher(), c = StableHasher(), d = StableHasher()
        a.combine(UInt64(0x61)); b.combine(Int(0x61)); c.combine(UInt32(0x61)); d.combine(Int64(0x61))
        #expect([a.value, b.value, c.value, d.value] == [h.value, h.value, h.value, h.value])
        var t = StableHasher(), one = StableHasher()
        t.combine(true); one.byte(1)
        #expect(t.value == one.value)
        var neg = StableHasher(), bits = StableHasher()
        neg.combine(Int(-3)); bits.combine(UInt64(bitPattern: -3))
        #expect(neg.value == bits.value)
    }

    /// A string is its UTF-8 length, then its bytes eight at a time, little-endian, the last word
    /// zero-padded.
    @Test func stringsAreTheirLengthThenWords() {
        var s = StableHasher()
        s.combine("abcdefghij")
        var w = StableHasher()
        w.combine(UInt64(10))
        w.combine(UInt64(0x6867_6665_6463_6261))  // "abcdefgh"
        w.combine(UInt64(0x6a69))                 // "ij"
        #expect(s.value == w.value)
        var empty = StableHasher(), zero = StableHasher()
        empty.combine("")
        zero.combine(UInt64(0))
        #expect(empty.value == zero.value)
    }

    @Test func stringsAreLengthPrefixed() {
        var a = StableHasher(); a.combine("ab"); a.combine("c")
        var b = StableHasher(); b.combine("a"); b.combine("bc")
        #expect(a.value != b.value)
    }

    /// Order matters, and so does every bit of a word (a difference in a high bit reaches the low
    /// bits of the value).
    @Test func orderAndHighBitsMatter() {
        var a = StableHasher(); a.combine(UInt64(1)); a.combine(UInt64(2))
        var b = StableHasher(); b.combine(UInt64(2)); b.combine(UInt64(1))
        #expect(a.value != b.value)
        var values = Set<UInt64>()
        for bit in 0..<64 {
            var h = StableHasher()
            h.combine(UInt64(1) << UInt64(bit))
            h.combine(UInt64(7))
            values.insert(h.value & 0xFFFF)
        }
        #expect(values.count > 60)
    }
}

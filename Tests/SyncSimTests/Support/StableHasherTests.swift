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

@Suite struct StableHasherShortcutTests {
    /// `combine(UInt64)` skips zero high bytes with one multiplication; it must give exactly the
    /// byte-at-a-time FNV-1a value (trace hashes are pinned), including at every width boundary.
    @Test func combineEqualsBytewise() {
        var values: [UInt64] = [0, 1, 0xFF, 0x100, 0xFFFF, 0x1_0000, 0xFF_FFFF, 0xFFFF_FFFF, 0x1_0000_0000,
                                0xFFFF_FFFF_FFFF, .max, UInt64(bitPattern: -1), UInt64(bitPattern: -256)]
        var r = SimRandom(seed: 7)
        for shift in stride(from: 0, to: 64, by: 4) { for _ in 0..<8 { values.append(r.next() >> UInt64(shift)) } }
        var fast = StableHasher(), slow = StableHasher()
        for v in values {
            fast.combine(v)
            slow.combineBytewise(v)
            #expect(fast.value == slow.value, "after \(v)")
        }
        // The integer overloads route through it.
        var a = StableHasher(), b = StableHasher()
        a.combine(Int(-3)); b.combineBytewise(UInt64(bitPattern: -3))
        a.combine(UInt32(70_000)); b.combineBytewise(70_000)
        #expect(a.value == b.value)
    }
}

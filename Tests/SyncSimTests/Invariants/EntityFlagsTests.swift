import Testing
@testable import SyncSim

/// `EntityFlags` (the monitor's deleted-on-server set) answers as a `Set<EntityID>` does, for
/// small ids (its flat table) and huge ones (its dictionary fallback).
@Suite struct EntityFlagsTests {
    @Test func answersAsASet() {
        var flags = EntityFlags()
        var set = Set<EntityID>()
        var rng = SimRandom(seed: 11)
        #expect(flags.isEmpty)
        for _ in 0..<5_000 {
            let raw: UInt32 = rng.index(10) == 0 ? UInt32.max - UInt32(rng.index(50)) : UInt32(rng.index(3_000))
            let e = EntityID(raw)
            if rng.index(3) == 0 {
                flags.insert(e)
                set.insert(e)
            }
            let probe = EntityID(rng.index(2) == 0 ? raw : UInt32(rng.index(3_000)))
            #expect(flags.contains(probe) == set.contains(probe))
            #expect(flags.contains(e) == set.contains(e))
            #expect(flags.isEmpty == set.isEmpty)
        }
        #expect(set.count > 500)
    }
}

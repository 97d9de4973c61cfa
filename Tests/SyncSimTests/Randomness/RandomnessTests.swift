import Testing
@testable import SyncSim

/// Known answers computed with the reference C implementations (Vigna's splitmix64.c and
/// xoshiro256starstar.c), so a change to our generator can never silently change every seed.
@Suite struct RandomnessTests {
    @Test func splitMix64KnownAnswers() {
        var g = SplitMix64(seed: 0)
        #expect(g.next() == 0xe220_a839_7b1d_cdaf)
        #expect(g.next() == 0x6e78_9e6a_a1b9_65f4)
        #expect(g.next() == 0x06c4_5d18_8009_454f)
    }

    @Test func xoshiroKnownAnswersFromRawState() {
        var g = Xoshiro256StarStar(state: (1, 2, 3, 4))
        #expect(g.next() == 0x0000_0000_0000_2d00)
        #expect(g.next() == 0x0000_0000_0000_0000)
        #expect(g.next() == 0x0000_0000_5a00_7080)
        #expect(g.next() == 0x10e0_0000_0000_9d80)
    }

    @Test func xoshiroSeededBySplitMix() {
        var g = Xoshiro256StarStar(seed: 42)
        #expect(g.next() == 0x1578_0b2e_0c2e_c716)
        #expect(g.next() == 0x6104_d986_6d11_3a7e)
        #expect(g.next() == 0xae17_5332_39e4_99a1)
    }

    @Test func boundedDrawsStayInRangeAndAreUniform() {
        var r = SimRandom(seed: 7)
        var counts = [Int](repeating: 0, count: 6)
        for _ in 0..<60_000 {
            let x = r.below(6)
            #expect(x < 6)
            counts[Int(x)] += 1
        }
        // Each bucket within 5% of 10 000 (a biased modulo would not show here, but a broken
        // bound or a constant stream would).
        for c in counts { #expect(abs(c - 10_000) < 500) }
        for _ in 0..<1_000 { let x = r.int(in: -3...3); #expect((-3...3).contains(x)) }
    }

    @Test func boundedDrawRejectsTheBiasedZone() {
        // With bound 2^63 + 1, roughly half of all raw draws fall in the rejected zone: a
        // modulo implementation would return values ≥ bound or skew; ours never exceeds it.
        var r = SimRandom(seed: 3)
        let bound: UInt64 = (1 << 63) + 1
        for _ in 0..<1_000 { let x = r.below(bound); #expect(x < bound) }
    }

    @Test func forksAreIndependentOfEachOtherAndOfPosition() {
        let root = SimRandom(seed: 99)
        var a1 = root.fork(.client(1))
        var advanced = root
        for _ in 0..<100 { _ = advanced.next() }
        var a2 = advanced.fork(.client(1))
        // A fork depends on the stream's seed and label only, not on how far it has advanced.
        #expect(a1.next() == a2.next())
        var b = root.fork(.client(2))
        var n = root.fork(.network)
        #expect(root.fork(.client(1)).generator != b.generator)
        #expect(b.next() != n.next())
    }

    @Test func addingAClientLeavesAnotherClientsStreamUnchanged() throws {
        // Client 0's event ids (drawn from its own stream) are the same in a run with 2 clients
        // and in a run with 3: adding a client does not reshuffle another client's draws.
        func firstEventID(clients: Int) -> UInt64 {
            var ctx = ClientContext.testing(ClientID(0), clients: clients, seed: 5)
            ctx.random = SimRandom(seed: 5).fork(.client(0))
            var c = InstantClient(context: ctx, fullEntity: false, restoring: nil)
            let effects = c.step(.user(.write(UserWrite(id: WriteID(0), ops: [.create(EntityID(1), .todos, [])]))))
            return effects.compactMap { if case .send(.transact(let e, _, _)) = $0 { return e } else { return nil } }.first
                ?? c.pending[0].eventID
        }
        #expect(firstEventID(clients: 2) == firstEventID(clients: 3))
    }

    @Test func chanceMatchesItsRate() {
        var r = SimRandom(seed: 11)
        var hits = 0
        for _ in 0..<100_000 where r.chance(ppm: 250_000) { hits += 1 }
        #expect(abs(hits - 25_000) < 1_000)
        let never = r.chance(ppm: 0), always = r.chance(ppm: 1_000_000)
        #expect(!never && always)
    }
}

import Testing
@testable import SyncSim

@Suite struct NetworkModelTests {
    func model(drop: UInt32, dup: UInt32, seed: UInt64) -> NetworkModel {
        var o = SimulationOptions()
        o.dropPpm = drop
        o.duplicatePpm = dup
        o.latencyMinMs = 10
        o.latencyMaxMs = 50
        return NetworkModel(options: o, random: SimRandom(seed: seed).fork(.network))
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func dropAndDuplicateRatesWithinTolerance(seed: UInt64) {
        var m = model(drop: 100_000, dup: 200_000, seed: seed)
        var lost = 0, twice = 0
        let n = 20_000
        for _ in 0..<n {
            switch m.fate(.datagram, link: 0) {
            case .lose: lost += 1
            case .deliverTwice(let a, let b): twice += 1; #expect(b >= a)
            case .deliver(let l): #expect((10...50).contains(l))
            case .reset: Issue.record("datagrams are never reset")
            }
        }
        // 10% drop; duplicates are drawn independently (20%) but only for kept messages: 18%.
        #expect(abs(Double(lost) / Double(n) - 0.10) < 0.01)
        #expect(abs(Double(twice) / Double(n) - 0.18) < 0.01)
    }

    @Test func streamsResetInsteadOfLosingAndNeverDuplicate() {
        var m = model(drop: 300_000, dup: 500_000, seed: 9)
        var resets = 0
        for _ in 0..<5_000 {
            switch m.fate(.stream, link: 0) {
            case .reset: resets += 1
            case .lose, .deliverTwice: Issue.record("a stream neither loses one message nor duplicates")
            case .deliver: break
            }
        }
        #expect(resets > 1_000)
    }

    @Test func healTurnsFaultsOff() {
        var m = model(drop: 1_000_000, dup: 0, seed: 1)
        #expect(m.fate(.datagram, link: 0) == .lose)
        m.heal()
        if case .deliver = m.fate(.datagram, link: 0) {} else { Issue.record("expected delivery after heal") }
    }
}

import Testing
@testable import SyncSim

/// Seed arithmetic is checked where it could overflow: ranges near 2⁶⁴ are errors or exact,
/// never a trap, and shards partition a range.
@Suite struct SeedPlanTests {
    @Test func rangesPastTheLargestSeedAreErrors() throws {
        #expect(throws: SeedRangeError.pastLargestSeed(start: 18_446_744_073_709_551_600, count: 100)) {
            try SeedRange(start: 18_446_744_073_709_551_600, count: 100)
        }
        let top = try SeedRange(start: UInt64.max - 15, count: 15)
        #expect(top.count == 15 && top.upperBound == UInt64.max)
        #expect(top.description == "18446744073709551600..<18446744073709551615")
    }

    @Test func shardsPartitionTheRange() throws {
        let range = SeedRange(10..<23)
        var all: [UInt64] = []
        for k in 1...4 {
            let plan = SeedPlan(range, shard: try Shard(k, of: 4))
            let seeds = (0..<plan.count).map(plan.seed(at:))
            #expect(seeds == Array(stride(from: 10 + UInt64(k - 1), to: 23, by: 4)))
            all += seeds
        }
        #expect(all.sorted() == Array(10..<23))
    }

    @Test func shardsNearTheTopDoNotOverflow() throws {
        let range = SeedRange((UInt64.max - 10)..<UInt64.max)
        let plan = SeedPlan(range, shard: try Shard(3, of: 3))
        #expect(plan.count == 3)
        #expect((0..<plan.count).map(plan.seed(at:)) == [UInt64.max - 8, UInt64.max - 5, UInt64.max - 2])
        // More shards than seeds: the extra shards are empty.
        #expect(SeedPlan(SeedRange(0..<2), shard: try Shard(5, of: 9)).count == 0)
        #expect(SeedPlan(SeedRange(0..<UInt64.max), shard: try Shard(1, of: 1)).count == UInt64.max)
    }

    @Test func badShardsAreErrors() {
        for (k, n) in [(0, 2), (3, 2), (1, 0), (-1, 4)] {
            #expect(throws: ShardError(index: k, count: n)) { try Shard(k, of: n) }
        }
    }
}

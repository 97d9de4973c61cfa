import Testing
@testable import SyncSim

@Suite struct FreshSeedsTests {
    @Test func randomStartsStayBelowTheBoundAndKeepTheCount() throws {
        let r = try FreshSeeds.random(draw: UInt64.max, count: 200)
        #expect(r.lowerBound < FreshSeeds.randomStartBound && r.count == 200)
        #expect(try FreshSeeds.random(draw: 42, count: 3) == SeedRange(42..<45))
    }

    @Test func theEnvironmentStartIsCheckedLikeAnOption() throws {
        #expect(try FreshSeeds.fromEnvironment("5000", count: 2) == SeedRange(5000..<5002))
        #expect(try FreshSeeds.fromEnvironment(" 7 ", count: 1) == SeedRange(7..<8))
        for bad in ["", "-1", "1e3", "12abc", "0x10", "99999999999999999999999"] {
            #expect(throws: FreshSeedsError.notASeed(bad)) { try FreshSeeds.fromEnvironment(bad, count: 1) }
        }
        #expect(throws: FreshSeedsError.pastLargestSeed(start: UInt64.max, count: 2)) { try FreshSeeds.fromEnvironment("\(UInt64.max)", count: 2) }
        #expect(FreshSeedsError.notASeed("x").description.contains("SYNCSIM_SEED_START"))
    }
}

import Testing
@testable import SyncSim

/// The `pushPull` server answers a pull from the beginning from its rows
/// (`PushPullServer.pullEverything`) instead of walking every stamp it ever gave: the answer is
/// the walk's, whatever back-office writes (accepted, refused and rolled back, deletes that
/// re-stamp linking rows) came before, and a pull that does not fit one page is left to the walk.
@Suite("PushPull pull everything")
struct PushPullPullEverythingTests {
    @Test func aPullFromTheBeginningIsTheWalksAnswer() {
        let t = PushPullAdminWriteTests()
        var fromRows = 0
        for pageSize in [3, 100_000] {
            for seed in UInt64(1)...6 {
                var d = PushPullAdminWriteTests.Draw(state: seed)
                var s = PushPullServer(pageSize: pageSize)
                for k in 0..<120 {
                    let ops = (0..<(1 + d.below(3))).map { _ in t.op(&d) }
                    _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32(k)), ops: ops)), now: Int64(k))
                    let walk = s.pullWalkingStamps(sync: 7, since: nil, page: 2)
                    #expect(s.pull(sync: 7, since: nil, page: 2) == walk, "page size \(pageSize) seed \(seed) step \(k)")
                    if s.pullEverything(sync: 7, page: 2) != nil { fromRows += 1 }
                }
            }
        }
        // Both ways were taken: from the rows, and by the walk when the rows exceed a page.
        #expect(fromRows > 720 && fromRows < 1440, "\(fromRows) pulls answered from the rows")
    }
}

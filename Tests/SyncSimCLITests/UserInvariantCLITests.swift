import Foundation
import Testing
import SyncSim
import SyncSimCLI

/// A user invariant over the server's log: "no post ever gets more than 60 likes". The default
/// workload draws likes from 0..<100, so it breaks often — a claimed user invariant that breaks.
let likesCapped = try! CustomInvariant("likesCapped", summary: "no post ever has more than 60 likes") { run in
    var out: [Violation] = []
    for a in run.applied {
        for op in a.tx.ops {
            for x in op.assignments where x.field == .likes {
                if case .int(let n) = x.value, n > 60 {
                    out.append(Violation(try! InvariantID(custom: "likesCapped"), at: a.time, entity: op.entity,
                                         "tx \(a.tx.txID) from \(a.tx.origin) set likes = \(n)"))
                }
            }
        }
    }
    return out
}

/// The reference strategy under a user's contract that also claims the user invariant.
struct ReferenceClaimingLikes: SyncStrategy {
    var info: StrategyInfo {
        var i = ReferenceStrategy().info
        i.name = "refLikes"
        i.contract.insert(try! InvariantID(custom: "likesCapped"))
        return i
    }
    var transport: Transport { ReferenceStrategy().transport }
    func makeClient(_ c: ClientContext, restoring d: ReferenceClient.Durable?) -> ReferenceClient { ReferenceStrategy().makeClient(c, restoring: d) }
    func makeServer(_ c: ServerContext) -> ReferenceServer { ReferenceStrategy().makeServer(c) }
}

@Suite struct UserInvariantCLITests {
    func run(_ args: [String], _ strategies: [AnyStrategy], invariants: [CustomInvariant] = [likesCapped]) -> (Int32, CapturedOutput) {
        let captured = CapturedOutput()
        let status = SyncSimCLI.run(arguments: args, strategies: strategies, commandName: "my-sim", invariants: invariants,
                                    output: captured.output)
        return (status, captured)
    }

    @Test func listInvariantsShowsTheUserInvariantNextToTheBuiltIns() {
        let (status, out) = run(["list", "invariants"], [AnyStrategy(ReferenceStrategy())])
        #expect(status == 0)
        #expect(out.stdout.contains("convergence") && out.stdout.contains("likesCapped"))
        #expect(out.stdout.contains("user      no post ever has more than 60 likes"))
        let (_, strategies) = run(["list", "strategies"], [AnyStrategy(ReferenceClaimingLikes())])
        #expect(strategies.stdout.contains("likesCapped"))
    }

    /// Claimed and broken: exit 1, a JUnit failure and a report row for it. Unclaimed: exit 0,
    /// reported as expected.
    @Test func aClaimedUserInvariantFailsTheFuzzRun() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-uinv-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, out) = run(["fuzz", "--seeds", "0..30", "--jobs", "2", "--report-dir", dir + "/a", "--quiet"],
                                [AnyStrategy(ReferenceClaimingLikes()), AnyStrategy(ReferenceStrategy())])
        #expect(status == 1, "\(out.stdout)\(out.stderr)")
        let junit = try String(contentsOfFile: dir + "/a/junit.xml", encoding: .utf8)
        #expect(junit.contains("likesCapped") && junit.contains("<failure"))
        let md = try String(contentsOfFile: dir + "/a/report.md", encoding: .utf8)
        #expect(md.contains("| `likesCapped` |"))
        // The same invariant unclaimed (plain reference): reported, not a contract failure.
        let (ok, okOut) = run(["fuzz", "--seeds", "0..30", "--strategy", "reference", "--report-dir", dir + "/b", "--quiet"],
                              [AnyStrategy(ReferenceStrategy())])
        #expect(ok == 0, "\(okOut.stdout)\(okOut.stderr)")
        #expect(okOut.stdout.contains("likesCapped"))
    }

    @Test func shrinkTakesAUserInvariant() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-uinv-shrink-\(UInt32.random(in: 0...UInt32.max))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        var seed: UInt64?
        let s = AnyStrategy(ReferenceStrategy()).judged(by: [likesCapped])
        for n in UInt64(0)..<40 where seed == nil {
            if try s.run(s.schedule(seed: n), seed: n).violatedInvariants.contains(likesCapped.id) { seed = n }
        }
        let failing = try #require(seed)
        let (status, out) = run(["shrink", "--strategy", "reference", "--seed", "\(failing)", "--invariant", "likesCapped", "--out", dir + "/s.json"],
                                [AnyStrategy(ReferenceStrategy())])
        #expect(status == 1 || status == 0, "\(out.stderr)")
        #expect(FileManager.default.fileExists(atPath: dir + "/s.json"), "\(out.stdout)\(out.stderr)")
        let (bad, badOut) = run(["shrink", "--strategy", "reference", "--seed", "1", "--invariant", "likesCaped"], [AnyStrategy(ReferenceStrategy())])
        #expect(bad == 2 && badOut.stderr.contains("did you mean 'likesCapped'"))
    }

    @Test func duplicateUserInvariantsAreAUsageError() {
        let (status, out) = run(["list", "invariants"], [AnyStrategy(ReferenceStrategy())], invariants: [likesCapped, likesCapped])
        #expect(status == 2 && out.stderr.contains("likesCapped"))
    }
}

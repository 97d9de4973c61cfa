import Foundation
import Testing
import SyncSim
import SyncSimTesting

/// A user's strategy that claims more than it delivers: instant's machines, which let an admin
/// upsert bring a deleted entity back, under a contract that promises `noResurrection`.
struct ClaimsNoResurrection: SyncStrategy {
    var info: StrategyInfo {
        StrategyInfo(name: "claimsNoResurrection", summary: "instant claiming noResurrection", contract: [.noResurrection],
                     arbitration: .serverArrival)
    }
    var transport: Transport { .stream }
    func makeClient(_ c: ClientContext, restoring d: InstantClient.Durable?) -> InstantClient { InstantStrategy().makeClient(c, restoring: d) }
    func makeServer(_ c: ServerContext) -> InstantServer { InstantStrategy().makeServer(c) }
}

/// The same machines claiming only what they keep (instant claims noGhostDeletion too).
struct ClaimsLittle: SyncStrategy {
    var info: StrategyInfo {
        StrategyInfo(name: "claimsLittle", summary: "instant claiming noGhostDeletion", contract: [.noGhostDeletion],
                     arbitration: .serverArrival)
    }
    var transport: Transport { .stream }
    func makeClient(_ c: ClientContext, restoring d: InstantClient.Durable?) -> InstantClient { InstantStrategy().makeClient(c, restoring: d) }
    func makeServer(_ c: ServerContext) -> InstantServer { InstantStrategy().makeServer(c) }
}

@Suite struct SyncSimTestTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    /// The helper must be able to fail: a broken claim is recorded as an issue (here expected).
    @Test func expectContractRecordsABrokenClaim() throws {
        try withKnownIssue("ClaimsNoResurrection resurrects entities it claims never come back") {
            try SyncSimTest.expectContract(ClaimsNoResurrection(), seeds: 0..<20, jobs: 2, commandPrefix: "swift run my-sim")
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("noResurrection") && $0.rawValue.contains("swift run my-sim") }
        }
    }

    /// The failure carries a shrunk story, a replay command and a scenario file that replays to
    /// the same violation.
    @Test func aFailureIsShrunkAndReplayable() throws {
        let check = try SyncSimTest.checkContract(ClaimsNoResurrection(), seeds: 0..<20, jobs: 2)
        #expect(!check.passed)
        let f = try #require(check.failures.first)
        #expect(f.invariant == .noResurrection)
        #expect(f.shrunkActions.map { $0 < f.originalActions } == true)
        #expect(!f.story.isEmpty && f.story[0].hasPrefix("1  t="))
        #expect(f.replayCommand.contains("swift run syncsim"))
        let json = try #require(f.scenarioJSON)
        let scenario = try Scenario.decode(Data(json.utf8), file: "shrunk.json")
        let again = try AnyStrategy(ClaimsNoResurrection()).run(scenario.schedule, seed: scenario.seed)
        #expect(again.violatedInvariants.contains(.noResurrection))
        #expect(check.description.contains("breaks noResurrection"))
    }

    /// A strategy that keeps its (small) contract passes, and its unclaimed violations are listed
    /// as expected, not as failures.
    @Test func aKeptContractPasses() throws {
        let check = try SyncSimTest.checkContract(ClaimsLittle(), seeds: 0..<20, jobs: 2)
        #expect(check.passed, "\(check)")
        #expect(check.unclaimedViolations.contains(.noResurrection))
        try SyncSimTest.expectContract(ClaimsLittle(), seeds: 0..<20, jobs: 2)
    }

    /// The repository's own scenario library, as a user would replay theirs.
    @Test func theScenarioLibraryMeetsItsExpectations() {
        let outcomes = SyncSimTest.expectScenarios(in: Self.repository + "/Scenarios", strategies: AnyStrategy.builtIns)
        #expect(outcomes.count >= 6 * 15)
    }

    /// A wrong expectation is recorded as an issue naming the file and the replay command.
    @Test func aWrongExpectationIsRecorded() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-testing-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: dir) }
        let src = Self.repository + "/Scenarios/deletes/ghost-deletion-two-subscriptions.json"
        var text = try String(contentsOfFile: src, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"sharedDiff\": \"noGhostDeletion\"", with: "\"sharedDiff\": \"holds\"")
        try text.write(to: dir.appendingPathComponent("wrong.json"), atomically: true, encoding: .utf8)
        try "{\"format\": 1".write(to: dir.appendingPathComponent("broken.json"), atomically: true, encoding: .utf8)
        withKnownIssue {
            SyncSimTest.expectScenarios(in: dir.path, strategies: [AnyStrategy(SharedDiffStrategy())])
        } matching: { issue in
            issue.comments.contains { $0.rawValue.contains("wrong.json") || $0.rawValue.contains("broken.json") }
        }
        let outcomes = SyncSimTest.replayScenarios(in: dir.path, strategies: [AnyStrategy(SharedDiffStrategy())])
        #expect(outcomes.map(\.file) == ["broken.json", "wrong.json"])
        #expect(outcomes[0].error != nil && !outcomes[1].met)
    }
}

import Foundation
import Testing
@testable import SyncSim

/// The history lines added for issue 13: a `queryFailed` that carries the last known result,
/// a `commit` that names the writes it superseded, and the user's `dropOldest`. Each is written
/// by a simulated run, read back by `check` to the run's own verdicts, and refused when malformed.
@Suite struct HistoryFormatAdditionsTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    /// Runs `file` under `strategy` with export; returns the run and its history lines.
    static func export(_ file: String, _ strategy: String) throws -> (RunResult, [String]) {
        let s = try Scenario.load(path: root.appendingPathComponent(file).path)
        let a = AnyStrategy.builtIns.first { $0.name == strategy }!
        var lines: [String] = []
        let run = try a.run(s.schedule, seed: s.seed, history: { lines.append($0) })
        return (run, lines)
    }

    @Test(arguments: [
        ("reads/queryonce-offline-carries-last-known-result.json", "instant", #""e":"queryFailed""#, #""result":{"#),
        ("reads/queryonce-offline-carries-last-known-result.json", "conflictPrompt", #""e":"queryFailed""#, #""result":{"#),
        ("sync/instant-server-combines-rapid-typing.json", "instant", #""e":"commit""#, #""superseded":["#),
        ("queue/drop-oldest.json", "conflictPrompt", #""e":"dropOldest""#, #""e":"dropOldest""#),
    ])
    func exportedLinesReadBackToTheRunsVerdicts(_ file: String, _ strategy: String, _ kind: String, _ key: String) throws {
        let (run, lines) = try Self.export(file, strategy)
        #expect(lines.contains { $0.contains(kind) && $0.contains(key) }, "no \(key) in \(file)'s history")
        let checked = try HistoryCheck.check(lines: lines, HistoryCheck.Options(keepStory: true))
        #expect(checked.violations == run.violations)
        if key.contains("result") {
            // The story of the recording shows the result, as the simulation's does.
            #expect(checked.story.contains { $0.text.contains(#"last known result: todo#1 {title = "a""#) }, "\(checked.story.map(\.text))")
        }
    }

    /// The last known result read back is the one the client carried.
    @Test func lastKnownResultRoundTrips() throws {
        let (run, lines) = try Self.export("reads/queryonce-offline-carries-last-known-result.json", "instant")
        let carried = run.history.told.compactMap { t -> QueryResult? in
            if case .queryOnceFailedWithResult(_, _, let r) = t.event { return r } else { return nil }
        }
        #expect(carried.count == 1)
        #expect(carried.first?.roots == [EntityID(1), EntityID(2)])
        let checked = try HistoryCheck.check(lines: lines, HistoryCheck.Options(keepStory: true))
        let text = try #require(carried.first).lastKnownText
        #expect(checked.story.contains { $0.text.hasSuffix("last known result: " + text) }, "\(checked.story.map(\.text))")
    }

    @Test(arguments: [
        (#"{"e":"queryFailed","t":1,"client":"A","req":1,"offline":true,"stale":false,"result":{"roots":[],"records":[]}}"#, "stale", "is stale"),
        (#"{"e":"queryFailed","t":1,"client":"A","req":1,"offline":true,"result":null}"#, "result", "not null"),
        (#"{"e":"commit","t":1,"tx":1,"origin":"A","writes":[0],"ops":[],"superseded":[-1]}"#, "superseded[0]", "not a whole number"),
        (#"{"e":"dropOldest","t":1,"client":"A","entity":3}"#, "entity", "unknown key"),
    ])
    func malformedAdditionsAreRefusedWithTheirPath(_ line: String, _ path: String, _ message: String) throws {
        let e = try #require(MalformedHistoryTests.error(line))
        #expect(e.line == 2, "\(e)")
        #expect(e.path == path, "\(e)")
        #expect(e.message.contains(message), "\(e)")
    }
}

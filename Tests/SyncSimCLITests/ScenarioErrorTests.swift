import Foundation
import Testing

/// Malformed scenario files: a clear error naming the file, the JSON path and what is expected,
/// exit code 2, never a crash.
@Suite struct ScenarioErrorTests {
    static let good = """
    {"format": 1, "title": "t", "strategy": "instant", "expect": {"instant": "holds"},
     "options": {"clients": 2},
     "initial": [{"entity": 1, "namespace": "todos", "set": {"title": "a"}}],
     "actions": [
       {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "todos"}},
       {"at": 10, "do": "update", "client": "B", "entity": 1, "set": {"title": "b"}}
     ]}
    """

    static let cases: [(name: String, text: String, path: String, says: String)] = [
        ("bad JSON", "{\"format\": 1, \"title\": ", "", "not valid JSON"),
        ("unknown action", good.replacingOccurrences(of: "\"do\": \"update\"", with: "\"do\": \"teleport\""), "actions[1].do", "unknown action 'teleport'"),
        ("missing field", good.replacingOccurrences(of: "\"entity\": 1, \"set\"", with: "\"set\""), "actions[1].entity", "missing required key 'entity'"),
        ("wrong type", good.replacingOccurrences(of: "\"at\": 10", with: "\"at\": \"ten\""), "actions[1].at", "wrong type"),
        ("time going backwards", good.replacingOccurrences(of: "\"at\": 10", with: "\"at\": -5").replacingOccurrences(of: "\"at\": 0", with: "\"at\": 20"), "actions[1].at", "expected a time in 0…86400000 ms, got -5"),
        ("time out of order", good.replacingOccurrences(of: "\"at\": 0", with: "\"at\": 50"), "actions[1].at", "time goes backwards"),
        ("entity before creation", good.replacingOccurrences(of: "\"entity\": 1, \"set\": {\"title\": \"b\"}", with: "\"entity\": 9, \"set\": {\"title\": \"b\"}"), "actions[1].entity", "referenced before it is created"),
        ("unknown field", good.replacingOccurrences(of: "{\"title\": \"b\"}", with: "{\"titel\": \"b\"}"), "actions[1].set.titel", "unknown field 'titel'"),
        ("unknown option", good.replacingOccurrences(of: "\"clients\": 2", with: "\"clients\": 2, \"dropRate\": 5"), "options.dropRate", "unknown key 'dropRate'"),
        ("unknown client", good.replacingOccurrences(of: "\"client\": \"B\"", with: "\"client\": \"Q\""), "actions[1].client", "client Q does not exist"),
        ("syntax error with line:column", "{\"format\": 1,\n \"title\": }", "title", ":2:11: title: not valid JSON: unexpected '}'"),
        ("duplicate key", good.replacingOccurrences(of: "\"at\": 10", with: "\"at\": 10, \"at\": 11"), "actions[1].at", "duplicate key 'at'"),
        ("float for an integer", good.replacingOccurrences(of: "\"at\": 10", with: "\"at\": 10.5"), "actions[1].at", "expected a whole number, got 10.5"),
        ("unknown strategy in expect", good.replacingOccurrences(of: "{\"instant\": \"holds\"}", with: "{\"instant\": \"holds\", \"instnat\": \"holds\"}"), "expect.instnat", "did you mean 'instant'"),
        ("reused subscription id", good.replacingOccurrences(of: "{\"at\": 10, \"do\": \"update\", \"client\": \"B\", \"entity\": 1, \"set\": {\"title\": \"b\"}}", with: "{\"at\": 10, \"do\": \"subscribe\", \"client\": \"B\", \"sub\": 1, \"query\": {\"namespace\": \"todos\"}}"), "actions[1].sub", "opened twice"),
        ("zero interval", good.replacingOccurrences(of: "\"clients\": 2", with: "\"clients\": 2, \"syncIntervalMs\": 0"), "options.syncIntervalMs", "in 1000…86400000 ms, got 0"),
        // The issue's three reproductions: a 50,000,000 entity id, a time of Int64.max, an event
        // bound of 10^12 with a zero sync interval.
        ("huge entity id", #"{"format":1,"title":"t","strategy":"instant","initial":[{"entity":50000000,"namespace":"todos"}],"actions":[{"at":0,"do":"offline","client":"A"}]}"#, "initial[0].entity", ":1:67: initial[0].entity: expected an entity id in 0…999999, got 50000000"),
        ("time at Int64.max", #"{"format":1,"title":"t","strategy":"instant","actions":[{"at":9223372036854775807,"do":"offline","client":"A"}]}"#, "actions[0].at", "expected a time in 0…86400000 ms, got 9223372036854775807"),
        ("event bound switched off", #"{"format":1,"title":"t","strategy":"pushPull","options":{"syncIntervalMs":0,"maxEvents":1000000000000},"actions":[{"at":0,"do":"offline","client":"A"}]}"#, "options.maxEvents", "expected an event bound in 1…2000000 events"),
    ]

    @Test(arguments: cases.indices)
    func malformedFileIsExit2WithFileAndPath(index: Int) throws {
        let c = Self.cases[index]
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-bad-\(getpid())-\(index)")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let file = dir.appendingPathComponent("case.json")
        try c.text.write(to: file, atomically: true, encoding: .utf8)
        let o = try CLI.run(["replay", file.path])
        #expect(o.status == 2, "\(c.name): exit \(o.status)\n\(o.stderr)")
        #expect(o.stderr.contains(file.path), "\(c.name): the message must name the file: \(o.stderr)")
        if !c.path.isEmpty { #expect(o.stderr.contains(c.path), "\(c.name): the message must name \(c.path): \(o.stderr)") }
        #expect(o.stderr.contains(c.says), "\(c.name): \(o.stderr)")
        #expect(!o.stderr.contains("Fatal error"))
    }

    @Test func theGoodFileReplays() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-good-\(getpid()).json")
        try Self.good.write(to: file, atomically: true, encoding: .utf8)
        let o = try CLI.run(["replay", file.path])
        #expect(o.status == 0, "\(o.stderr)\(o.stdout)")
        #expect(o.stdout.contains("expectation met"))
    }

    @Test func missingFileIsExit2() throws {
        let o = try CLI.run(["replay", "/nonexistent/x.json"])
        #expect(o.status == 2 && o.stderr.contains("/nonexistent/x.json"))
    }
}

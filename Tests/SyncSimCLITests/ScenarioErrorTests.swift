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

import Foundation
import Testing
import SyncSimCLI

/// `replay FILE --explain`: the classification of each action, as text and as JSON.
@Suite struct ExplainCLITests {
    /// Seed 001's ghost deletion plus an unrelated typing burst into a todo nobody subscribes to.
    static let ghost = """
    {"format": 1, "title": "ghost deletion plus unrelated typing", "strategy": "sharedDiff", "expect": {"sharedDiff": "noGhostDeletion"},
     "options": {"clients": 1, "latencyMaxMs": 50, "latencyMinMs": 50},
     "initial": [
       {"entity": 1, "namespace": "profiles", "set": {"bio": "a", "name": "Alice"}},
       {"entity": 2, "namespace": "profiles", "set": {"bio": "b", "name": "Bob"}},
       {"entity": 3, "links": {"author": 1}, "namespace": "posts", "set": {"content": "hi", "likes": 0}},
       {"entity": 4, "namespace": "todos", "set": {"title": "milk"}}
     ],
     "actions": [
       {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "profiles"}},
       {"at": 0, "do": "subscribe", "client": "A", "sub": 2, "query": {"include": "author", "namespace": "posts"}},
       {"at": 1000, "do": "update", "client": "A", "entity": 2, "set": {"bio": "b2"}},
       {"at": 3000, "do": "type", "client": "A", "entity": 4, "field": "title", "text": "oat", "everyMs": 40}
     ]}
    """

    static func file() throws -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-explain-\(getpid()).json").path
        try AtomicFile.write(ghost, to: p)
        return p
    }

    @Test func jsonClassifiesEveryAction() throws {
        let o = NotesTool.run(["replay", try Self.file(), "--explain", "--json"])
        #expect(o.status == 0, "\(o.stderr)")
        let all = try #require(try JSONSerialization.jsonObject(with: Data(o.stdout.utf8)) as? [[String: Any]], "\(o.stdout)")
        let e = try #require(all.first?["explanation"] as? [String: Any])
        let actions = try #require(e["actions"] as? [[String: Any]])
        #expect(actions.map { $0["verdict"] as? String } == ["timing", "timing", "timing", "free"])
        #expect(e["necessaryActions"] as? [Int] == [0, 1, 2])
        #expect(e["invariant"] as? String == "noGhostDeletion")
        #expect((actions[2]["freeParameters"] as? [String]) == ["set.bio"])
        #expect((e["pointOfNoReturn"] as? [String: Any])?["afterActions"] as? Int == 3)
    }

    @Test func textFollowsTheStoryAndOptionsAreChecked() throws {
        let f = try Self.file()
        let o = NotesTool.run(["replay", f, "--explain"])
        #expect(o.status == 0)
        #expect(o.stdout.contains("explain: sharedDiff violates noGhostDeletion on entity 2"), "\(o.stdout)")
        #expect(o.stdout.contains("#4  free       {\"at\":3000"), "\(o.stdout)")
        #expect(o.stdout.contains("point of no return: after action #3"), "\(o.stdout)")
        let json = NotesTool.run(["replay", f, "--json"])
        #expect(json.status == 2 && json.stderr.contains("--json needs --explain"))
        let budget = NotesTool.run(["replay", f, "--explain", "--explain-runs", "0"])
        #expect(budget.status == 2)
        // A file that does not fail has nothing to explain, and says so.
        let holds = NotesTool.run(["replay", f, "--explain", "--json", "--strategy", "reference"])
        #expect(holds.status == 1 && holds.stdout.contains("nothing to explain"), "\(holds.stdout)")
    }
}

import Foundation
import Testing
import SyncSim

/// Decoding a scenario file: sparse entity ids renumbered (dense ones untouched), file-level
/// caps, strategy names in `expect`, and every rejection located by line:column and path.
@Suite struct ScenarioDecodingTests {
    static func file(initial: String = "[]", actions: String, extra: String = "") -> String {
        """
        {"format": 1, "title": "t", "strategy": "instant", \(extra)
         "initial": \(initial),
         "actions": \(actions)}
        """
    }

    static func decode(_ text: String, strategies: [String]? = nil) throws -> Scenario {
        try Scenario.decode(Data(text.utf8), file: "f.json", strategies: strategies)
    }

    static func error(_ text: String, strategies: [String]? = nil) -> ScenarioError? {
        do { _ = try decode(text, strategies: strategies); return nil } catch let e as ScenarioError { return e } catch { return nil }
    }

    @Test func sparseIDsAreRenumberedInOrder() throws {
        let text = Self.file(initial: #"[{"entity": 900000, "namespace": "profiles"}, {"entity": 5000, "namespace": "posts", "links": {"author": 900000}}]"#,
                             actions: #"[{"at": 1, "do": "update", "client": "A", "entity": 5000, "set": {"likes": 2}}, {"at": 2, "do": "create", "client": "B", "entity": 70000, "namespace": "todos", "set": {}}]"#)
        let s = try Self.decode(text)
        #expect(s.schedule.initial.map(\.entity.raw) == [3, 1])
        #expect(s.schedule.initial[1].links.map(\.target.raw) == [3])
        #expect(s.schedule.actions.map { $0.action.entities.map(\.raw) } == [[1], [2]])
        #expect(s.entityRenumbering.map { [$0.from.raw, $0.to.raw] } == [[5000, 1], [70000, 2], [900000, 3]])
        #expect(s.renumberingNote?.contains("5000→1, 70000→2, 900000→3") == true)
        _ = try s.schedule.compile()
        // Same run as a file written with the dense ids.
        let dense = Self.file(initial: #"[{"entity": 3, "namespace": "profiles"}, {"entity": 1, "namespace": "posts", "links": {"author": 3}}]"#,
                              actions: #"[{"at": 1, "do": "update", "client": "A", "entity": 1, "set": {"likes": 2}}, {"at": 2, "do": "create", "client": "B", "entity": 2, "namespace": "todos", "set": {}}]"#)
        #expect(try Self.decode(dense).schedule == s.schedule)
    }

    @Test func denseIDsAreKept() throws {
        let text = Self.file(initial: #"[{"entity": 4000, "namespace": "todos"}, {"entity": 7, "namespace": "todos"}]"#, actions: "[]")
        let s = try Self.decode(text)
        #expect(s.schedule.initial.map(\.entity.raw) == [4000, 7])
        #expect(s.entityRenumbering.isEmpty && s.renumberingNote == nil)
    }

    @Test func unknownStrategyInExpect() {
        let text = Self.file(actions: "[]", extra: #""expect": {"instant": "holds", "instnat": "holds"},"#)
        let e = Self.error(text, strategies: ["instant", "reference"])
        #expect(e?.path == "expect.instnat", "\(String(describing: e))")
        #expect(e?.message.contains("did you mean 'instant'") == true, "\(String(describing: e))")
        #expect(e?.location != nil)
        #expect(Self.error(text) == nil, "without a list of strategies nothing is checked (library callers)")
    }

    @Test(arguments: [
        // (text edit, path, words, line:column)
        (#""at": 1.5"#, "actions[0].at", "expected a whole number, got 1.5", "3:21"),
        (#""at": 1e3"#, "actions[0].at", "expected a whole number, got 1e3", "3:21"),
        (#""at": 1, "at": 2"#, "actions[0].at", "duplicate key 'at'", "3:24"),
        (#""at": 99999999999999999999999"#, "actions[0].at", "outside", "3:21"),
        (#""at": 0, "sub": 1"#, "actions[0].sub", "unknown key 'sub'", "3:31"),
    ])
    func locatedRejections(edit: String, path: String, says: String, at: String) {
        let text = Self.file(actions: "[{\(edit), \"do\": \"offline\", \"client\": \"A\"}]")
        let e = Self.error(text)
        #expect(e?.path == path, "\(String(describing: e))")
        #expect(e?.message.contains(says) == true, "\(String(describing: e))")
        #expect(e?.location?.description == at, "\(String(describing: e))")
    }

    @Test func fileCaps() {
        let many = "[" + (0...ScenarioLimits.maxActions).map { _ in #"{"at": 0, "do": "offline", "client": "A"}"# }.joined(separator: ",") + "]"
        let e = Self.error(Self.file(actions: many))
        #expect(e?.path == "actions" && e?.message.contains("at most 10000") == true, "\(String(describing: e))")
        let creates = "[" + (1...ScenarioLimits.maxEntities + 1).map { #"{"at": 0, "do": "serverCreate", "entity": \#($0), "namespace": "todos", "set": {}}"# }.joined(separator: ",") + "]"
        let c = Self.error(Self.file(actions: creates))
        #expect(c?.path == "actions[2000]" && c?.message.contains("at most 2000 entities") == true, "\(String(describing: c))")
        let ok = "[" + (1...ScenarioLimits.maxEntities).map { #"{"at": 0, "do": "serverCreate", "entity": \#($0), "namespace": "todos", "set": {}}"# }.joined(separator: ",") + "]"
        #expect(Self.error(Self.file(actions: ok)) == nil)
        let big = Data(count: ScenarioLimits.maxFileBytes + 1)
        #expect(throws: ScenarioError.self) { try Scenario.decode(big, file: "big.json") }
    }

    @Test func longAndNULValuesAreClippedAndEscapedInMessages() {
        let long = String(repeating: "x", count: 10_000)
        for name in [long, long + "\u{0}tail"] {
            let text = Self.error(Self.file(actions: "[{\"at\": 0, \"do\": \"\(name)\", \"client\": \"A\"}]"))?.description ?? ""
            #expect(!text.isEmpty && text.count < 1_000, "\(text.count) characters")
            #expect(!text.unicodeScalars.contains { $0.value == 0 })
        }
        let nul = Self.error(Self.file(actions: "[{\"at\": 0, \"do\": \"a\\u0000b\", \"client\": \"A\"}]"))?.description ?? ""
        #expect(nul.contains("a\\u{0}b"), "\(nul)")
        #expect(nul.hasSuffix(ActionKind.allCases.map(\.rawValue).joined(separator: ", ")), "the message is whole after the NUL: \(nul)")
    }
}

import Foundation
import Testing
import SyncSim

/// The strict JSON reader: every problem located by line:column and JSON path, bounded depth,
/// no trap on any input.
@Suite struct JSONReaderTests {
    func read(_ s: String) throws -> JSONNode { try JSONReader.read(Array(s.utf8)) }

    func error(_ s: String) -> JSONReadError? {
        do { _ = try read(s); return nil } catch let e as JSONReadError { return e } catch { return nil }
    }

    @Test func readsValuesWithLocations() throws {
        let t = try read("{\"a\": [1, -2, \"x\\u00e9\\n\"],\n  \"b\": {\"c\": true, \"d\": null}}")
        guard case .object(let ms) = t.value else { Issue.record("not an object"); return }
        #expect(ms.map(\.key) == ["a", "b"])
        #expect(t.node(at: [.key("b"), .key("c")])?.location == JSONLocation(line: 2, column: 14))
        if case .string(let s)? = t.node(at: [.key("a"), .index(2)])?.value { #expect(s == "xé\n") } else { Issue.record("no string") }
        if case .number(let n)? = t.node(at: [.key("a"), .index(1)])?.value { #expect(n == "-2") } else { Issue.record("no number") }
        #expect(t.nearestLocation(of: [.key("b"), .key("missing")]) == JSONLocation(line: 2, column: 8))
    }

    @Test(arguments: [
        ("{\"a\": 1,}", "1:9", "trailing comma"),
        ("{\"a\": 1, \"a\": 2}", "1:10", "duplicate key 'a' (first at 1:2)"),
        ("[1, 2,\n 3 4]", "2:4", "expected ',' or ']'"),
        ("{\"a\": \"x\u{0}y\"}", "1:9", "a NUL byte inside a string"),
        ("{\"a\": tru}", "1:7", "expected 'true'"),
        ("{\"a\": 01}", "1:7", "leading zero"),
        ("{\"a\": 1.}", "1:7", "expected a digit after '.'"),
        ("{\"a\": \"\\ud800\"}", "1:14", "lone surrogate"),
        ("{\"a\": \"\\q\"}", "1:9", "unknown escape"),
        ("", "1:1", "the file is empty"),
        ("{\"a\": 1} x", "1:10", "after the end of the JSON value"),
        ("{\"a\": \"open", "1:12", "the file ends inside a string"),
        ("\u{0}", "1:1", "a NUL byte"),
    ])
    func syntaxErrorsAreLocated(text: String, at: String, says: String) {
        guard let e = error(text) else { Issue.record("accepted: \(text.debugDescription)"); return }
        #expect(e.location.description == at, "\(e)")
        #expect(e.message.contains(says), "\(e)")
    }

    @Test func duplicateKeysNameTheirPath() {
        let e = error("{\"actions\": [{\"at\": 1, \"do\": \"x\", \"at\": 2}]}")
        #expect(e?.path == "actions[0].at", "\(String(describing: e))")
    }

    @Test func depthIsBounded() throws {
        let ok = String(repeating: "[", count: 63) + String(repeating: "]", count: 63)
        _ = try read(ok)
        let deep = String(repeating: "[", count: 100_000)
        let e = error(deep)
        #expect(e?.message.contains("nested more than 64 levels") == true, "\(String(describing: e))")
    }

    @Test func invalidUTF8IsAnErrorNotAReplacement() {
        do {
            _ = try JSONReader.read([0x22, 0xFF, 0xFE, 0x22])
            Issue.record("accepted invalid UTF-8")
        } catch let e as JSONReadError {
            #expect(e.message.contains("not valid UTF-8"))
        } catch { Issue.record("\(error)") }
    }

    @Test func messageTextIsEscapedAndClipped() {
        #expect(JSONText.clipped("a\u{0}b") == "a\\u{0}b")
        #expect(JSONText.clipped(String(repeating: "x", count: 500)).count == 61)
        #expect(JSONText.sanitized("keep \\n but escape \u{1b}") == "keep \\n but escape \\u{1b}")
    }

    @Test func pathsRenderAndParse() {
        let p: [JSONPathComponent] = [.key("actions"), .index(3), .key("set"), .key("title")]
        #expect(JSONPathComponent.render(p) == "actions[3].set.title")
        #expect(JSONPathComponent.parse("actions[3].set.title") == p)
        #expect(JSONPathComponent.parse("options.clockSkewMs[1]") == [.key("options"), .key("clockSkewMs"), .index(1)])
    }
}

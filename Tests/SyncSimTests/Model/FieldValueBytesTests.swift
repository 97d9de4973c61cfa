import Foundation
import Testing
@testable import SyncSim

/// Values are equal when their bytes are: the same text in two Unicode forms ("é" as one code
/// point, NFC, or "e" plus a combining accent, NFD) is two values, as it is in the trace hash,
/// the story and the JSON. Swift's `String ==` says these are equal, so a shortcut that keeps
/// what is there when the new value "equals" it used to keep the old bytes.
@Suite struct FieldValueBytesTests {
    static let nfc = "caf\u{E9}"
    static let nfd = "cafe\u{301}"

    @Test func unicodeFormsAreDifferentValues() {
        // The premise: Swift's String equality does not tell these apart; their bytes differ.
        #expect(Self.nfc == Self.nfd)
        #expect(Array(Self.nfc.utf8) != Array(Self.nfd.utf8))
        #expect(FieldValue.string(Self.nfc) != FieldValue.string(Self.nfd))
        #expect(FieldValue.string(Self.nfc) == FieldValue.string(String(Self.nfc.unicodeScalars)))
        #expect(FieldValue.string("") == FieldValue.string(""))
        #expect(FieldValue.string("a") != FieldValue.string("ab"))
        #expect(FieldValue.string("1") != FieldValue.int(1))
        // Equal values hash equally (the hash is coarser than the equality).
        var seen = Set<FieldValue>()
        seen.insert(.string(Self.nfc))
        seen.insert(.string(Self.nfd))
        #expect(seen.count == 2)
    }

    /// The word-at-a-time comparison and the same-representation shortcut agree with comparing
    /// the byte arrays, for short (inline) and long (stored) strings, equal or differing at any
    /// byte, in one storage or two.
    @Test func bytesAreComparedAtEveryLengthAndPosition() {
        for n in [0, 1, 7, 8, 9, 15, 16, 17, 31, 40] {
            let base = String(repeating: "x", count: n)
            // The same text built again (another storage for long strings).
            let copy = String(decoding: Array(base.utf8), as: UTF8.self)
            #expect(FieldValue.string(base) == FieldValue.string(copy), "\(n)")
            #expect(FieldValue.string(base) == FieldValue.string(base), "\(n)")
            for k in 0..<n {
                var bytes = Array(base.utf8)
                bytes[k] = UInt8(ascii: "y")
                let other = String(decoding: bytes, as: UTF8.self)
                #expect(FieldValue.string(base) != FieldValue.string(other), "\(n) at \(k)")
                #expect(FieldValue.string(other) != FieldValue.string(base), "\(n) at \(k)")
            }
            #expect(FieldValue.string(base) != FieldValue.string(base + "x"), "\(n) longer")
        }
        // Long texts in two Unicode forms: same canonical text, other bytes and lengths.
        let long = String(repeating: "ab", count: 12)
        #expect(FieldValue.string(long + Self.nfc) != FieldValue.string(long + Self.nfd))
        #expect(FieldValue.string(long + Self.nfc) == FieldValue.string(String(decoding: Array((long + Self.nfc).utf8), as: UTF8.self)))
    }

    /// `sameBytes` (words first, then storage, then bytes) against comparing the byte arrays:
    /// small and large strings, copies sharing storage, equal text in separate storage, and
    /// different text of one length.
    @Test func sameBytesIsByteEquality() {
        var texts: [String] = ["", "a", "b", "ab", "ba", Self.nfc, Self.nfd, "exactly15bytes!", "exactly15bytes?",
                               "sixteen bytes!!!", "sixteen bytes!!?", String(repeating: "long text ", count: 8)]
        // The same texts again in storage of their own.
        texts += texts.map { String(decoding: Array($0.utf8), as: UTF8.self) }
        for x in texts {
            for y in texts {
                #expect(FieldValue.sameBytes(x, y) == (Array(x.utf8) == Array(y.utf8)), "\(x) vs \(y)")
            }
            let copy = x
            #expect(FieldValue.sameBytes(x, copy))
        }
    }

    @Test func equalityAgreesWithTheByteOrderOfConditions() {
        let x = FieldValue.string(Self.nfc), v = FieldValue.string(Self.nfd)
        let eq = QueryCondition.holds(x, .eq, v)
        let lte = QueryCondition.holds(x, .lte, v), gte = QueryCondition.holds(x, .gte, v)
        #expect(!eq)
        // Exactly one side of the order holds for two different values.
        #expect(lte != gte)
    }

    @Test func assignWritesOtherBytesOfTheSameText() {
        let schema = Schema.default
        let ns = schema.namespace(named: "todos")!
        let title = schema.field(named: "title", in: ns)!
        var r = EntityRecord(namespace: ns, schema: schema)
        r.assign(title, .string(Self.nfc))
        r.assign(title, .string(Self.nfd))
        guard case .string(let s)? = r[title] else { Issue.record("no title"); return }
        #expect(Array(s.utf8) == Array(Self.nfd.utf8))
    }

    /// End to end, for every built-in: a title written in NFC and then rewritten in NFD ends as
    /// NFD on the server and in what every client sees.
    @Test(arguments: StrategyRegistry.names)
    func aRewriteInAnotherFormReachesEveryone(strategy name: String) throws {
        let json = """
        {"format": 1, "title": "unicode forms", "description": "NFC then NFD",
         "strategy": "\(name)", "expect": {"\(name)": "holds"},
         "options": {"clients": 2, "latencyMaxMs": 50, "latencyMinMs": 50, "persistence": true},
         "initial": [{"entity": 1, "namespace": "todos", "set": {"done": false, "priority": 1, "title": "a"}}],
         "actions": [
          {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "todos"}},
          {"at": 0, "do": "subscribe", "client": "B", "sub": 2, "query": {"namespace": "todos"}},
          {"at": 1000, "do": "update", "client": "A", "entity": 1, "set": {"title": "caf\\u00e9"}},
          {"at": 3000, "do": "update", "client": "A", "entity": 1, "set": {"title": "cafe\\u0301"}}
         ]}
        """
        let scenario = try Scenario.decode(Data(json.utf8), file: "unicode-forms.json")
        let strategy = try #require(StrategyRegistry.named(name))
        let result = try simulate(strategy, scenario.schedule, seed: scenario.seed)
        #expect(result.violations.isEmpty, "\(result.violations)")
        let schema = Schema.default
        let ns = schema.namespace(named: "todos")!
        let title = schema.field(named: "title", in: ns)!
        let want = Array(Self.nfd.utf8)
        func bytes(_ r: EntityRecord?) -> [UInt8]? {
            guard case .string(let s)? = r?[title] else { return nil }
            return Array(s.utf8)
        }
        #expect(bytes(result.server[EntityID(1)]) == want, "server")
        for c in result.clients {
            for s in c.subscriptions {
                #expect(bytes(s.result?.record(EntityID(1))) == want, "\(c.client) sub \(s.id) sees")
            }
        }
    }
}

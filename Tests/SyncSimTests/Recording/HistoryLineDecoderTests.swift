import Foundation
import Testing
@testable import SyncSim

/// The fast decoder (`HistoryLineDecoder` + `HistoryReplayer.apply`) against the exact reader
/// (`JSONReader` + `HistoryReplayer.consume`): for every line, both must end in the same state
/// (the same intents, log, views, queues, story and violations) or fail with the same error, and
/// the fast path must actually take the lines it is built for (else the comparison is vacuous).
@Suite struct HistoryLineDecoderTests {
    /// Everything a line can change, compared field by field (dictionaries by `==`, never by
    /// their printed order).
    struct Snapshot: Equatable {
        var views: [[UInt32: QueryResult?]]
        var pending: [[WriteID]]
        var offline: [Bool]
        var unreachable: [Bool]
        var serverData: EntityStore
        var subs: [[String]]
        var virtualTime: Int64
        var lastSeq: [Int64?]
        var history: String
        var seen: String
        var open: String
        var finished: Bool
        var story: [TraceLine]
        var violations: [Violation]
        var suppressed: Int
        var judged: [InvariantID]
    }

    enum Outcome: Equatable {
        case judged(Snapshot)
        case refused(HistoryFormatError)
    }

    /// Judges `lines` (raw bytes, one per line) with or without the fast path; also returns how
    /// many lines the fast path took.
    static func judge(_ lines: [[UInt8]], fast: Bool) -> (Outcome, Int) {
        var options = HistoryCheck.Options(keepStory: true)
        options.fastPath = fast
        var j = HistoryCheck.Judge(file: "t.jsonl", options)
        do {
            for (i, l) in lines.enumerated() {
                try l.withUnsafeBufferPointer { (b) throws(HistoryFormatError) in try j.line(b, i + 1) }
            }
            let r = j.replayer!
            let s = r.state
            let result = try j.result()
            return (.judged(Snapshot(
                views: s.views, pending: s.pending, offline: s.offline, unreachable: s.unreachable, serverData: s.serverData,
                subs: s.subs.map { $0.map { "\($0.0) \($0.1)" } }, virtualTime: s.virtualTime, lastSeq: r.lastSeq,
                history: String(reflecting: s.history), seen: String(reflecting: r.seen), open: String(reflecting: r.open),
                finished: r.finished, story: r.story ?? [], violations: result.violations, suppressed: result.suppressed,
                judged: result.judged)), j.fastLines)
        } catch {
            return (.refused(error), j.fastLines)
        }
    }

    static func lines(_ ss: [String]) -> [[UInt8]] { ss.map { Array($0.utf8) } }

    // MARK: - Exported histories

    /// Every built-in strategy, several seeds: the two paths agree on everything, and the fast
    /// path takes most lines.
    @Test(arguments: AnyStrategy.builtIns.map(\.name))
    func exportedHistoriesDecodeTheSameBothWays(_ name: String) throws {
        let strategy = AnyStrategy.builtIns.first { $0.name == name }!
        var fastTotal = 0, total = 0
        for seed in UInt64(0)..<4 {
            var out: [String] = []
            _ = try strategy.run(strategy.schedule(seed: seed, .init(actions: 25)), seed: seed, history: { out.append($0) })
            let (exact, none) = Self.judge(Self.lines(out), fast: false)
            let (fast, taken) = Self.judge(Self.lines(out), fast: true)
            #expect(none == 0)
            #expect(fast == exact, "\(name) seed \(seed): the fast path and the exact reader disagree")
            if case .refused(let e) = exact { Issue.record("an exported history was refused: \(e)") }
            fastTotal += taken
            total += out.count
        }
        #expect(fastTotal * 2 > total, "\(name): the fast path took only \(fastTotal) of \(total) lines")
    }

    /// The benchmark's synthetic history: every event line but the few rare kinds goes fast.
    @Test func syntheticHistoryDecodesTheSameBothWays() throws {
        var out: [String] = []
        SyntheticHistory.generate(events: 400) { out.append($0) }
        let (exact, _) = Self.judge(Self.lines(out), fast: false)
        let (fast, taken) = Self.judge(Self.lines(out), fast: true)
        #expect(fast == exact)
        // Not fast: the header, three subscribes, heal, server and end.
        #expect(taken == out.count - 7, "\(taken) of \(out.count)")
    }

    // MARK: - Hand-written edge cases

    static let header = #"{"syncsim":"history","version":1,"clients":2,"queueCap":50,"arbitration":"serverArrival","initial":[{"entity":1,"namespace":"todos","set":{"title":"milk","done":false}},{"entity":2,"namespace":"profiles","set":{"name":"ann"}}]}"#
    static let subscribe = #"{"e":"subscribe","t":1,"client":"A","seq":1,"sub":0,"query":{"namespace":"todos"}}"#
    static let done = #"{"e":"done","t":1,"client":"A","seq":2}"#

    /// A line after a header and an open subscription; `fast`: whether the fast path must take
    /// the line (nil: either way). Both paths must agree in every case.
    static let cases: [(String, [UInt8], Bool?)] = {
        func c(_ name: String, _ s: String, _ fast: Bool?) -> (String, [UInt8], Bool?) { (name, Array(s.utf8), fast) }
        let upd = #"{"op":"update","entity":1,"namespace":"todos","set":{"title":"x"}}"#
        func write(_ ops: String, _ extra: String = "") -> String { #"{"e":"write","t":5,"client":"A","seq":3,"id":0\#(extra),"ops":[\#(ops)]}"# }
        func yield(_ result: String, _ extra: String = "") -> String { #"{"e":"yield","t":5,"client":"A","seq":3,"sub":0\#(extra),"result":\#(result)}"# }
        func title(_ s: String) -> String { write(#"{"op":"update","entity":1,"namespace":"todos","set":{"title":\#(s)}}"#) }
        return [
            c("plain write", write(upd), true),
            c("keys in another order, set before namespace",
              #"{"ops":[{"set":{"title":"x"},"namespace":"todos","entity":1,"op":"update"}],"id":0,"seq":3,"client":"A","t":5,"e":"write"}"#, true),
            c("whitespace everywhere", " {\t\"e\" : \"write\" , \"t\" :5,\"client\":\"A\" ,\"seq\":3,\"id\": 0,\"ops\":[ \(upd) ] } \r", true),
            c("escapes in a value", title(#""a\"b\\c\/\b\f\n\r\t\u00e9\ud83d\ude00""#), true),
            c("non-ASCII in a value", title("\"café 😀 naïve\""), true),
            c("a value at the length limit", title("\"" + String(repeating: "y", count: ScheduleLimits.maxStringBytes) + "\""), true),
            c("a value over the length limit", title("\"" + String(repeating: "y", count: ScheduleLimits.maxStringBytes + 1) + "\""), false),
            c("an escaped key", #"{"\u0065":"write","t":5,"client":"A","seq":3,"id":0,"ops":[]}"#, false),
            c("a non-ASCII key", #"{"é":"write","t":5,"client":"A","seq":3,"id":0,"ops":[]}"#, false),
            c("the largest time", #"{"e":"queue","t":9007199254740991,"client":"A","seq":3,"writes":[]}"#, true),
            c("a time past the largest", #"{"e":"queue","t":9007199254740992,"client":"A","seq":3,"writes":[]}"#, false),
            c("a 19-digit transaction id", #"{"e":"commit","t":5,"tx":9223372036854775807,"origin":"A","writes":[],"ops":[]}"#, false),
            c("a 20-digit number", #"{"e":"commit","t":5,"tx":92233720368547758070,"origin":"A","writes":[],"ops":[]}"#, false),
            c("minus zero", #"{"e":"queue","t":-0,"client":"A","seq":3,"writes":[0]}"#, true),
            c("an exponent", #"{"e":"queue","t":1e2,"client":"A","seq":3,"writes":[]}"#, false),
            c("a fraction", #"{"e":"queue","t":1.0,"client":"A","seq":3,"writes":[]}"#, false),
            c("a leading zero", #"{"e":"queue","t":01,"client":"A","seq":3,"writes":[]}"#, false),
            c("a duplicate top-level key", #"{"e":"queue","t":5,"t":6,"client":"A","seq":3,"writes":[]}"#, false),
            c("a duplicate field", title(#""a","title":"b""#), false),
            c("a duplicate op key", write(#"{"op":"update","op":"update","entity":1,"namespace":"todos","set":{}}"#), false),
            c("a missing field (yield without sub)", #"{"e":"yield","t":5,"client":"A","seq":3,"result":null}"#, false),
            c("a missing field (write without ops)", #"{"e":"write","t":5,"client":"A","seq":3,"id":0}"#, false),
            c("a missing field (commit without origin)", #"{"e":"commit","t":5,"tx":1,"writes":[],"ops":[]}"#, false),
            c("a missing field (no t)", #"{"e":"queue","client":"A","seq":3,"writes":[]}"#, false),
            c("a missing field (no e)", #"{"t":5,"client":"A","seq":3,"writes":[]}"#, false),
            c("nulls where allowed", write(upd, #","clientTime":null,"burst":null"#).replacingOccurrences(of: #""seq":3"#, with: #""seq":null"#), true),
            c("a null result", yield("null"), true),
            c("null where not allowed", yield("null", #","connected":null"#), false),
            c("null after", #"{"e":"commit","t":5,"tx":1,"origin":"A","writes":[],"ops":[],"after":null}"#, false),
            c("an unknown key", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[],"extra":1}"#, false),
            c("a key of another kind", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[],"sub":1}"#, false),
            c("trailing garbage", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[]} x"#, false),
            c("a trailing comma", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[],}"#, false),
            c("a trailing comma in an array", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[1,]}"#, false),
            c("a byte-order mark", "\u{FEFF}" + #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[]}"#, false),
            c("an admin write", #"{"e":"write","t":5,"client":"admin","id":0,"ops":[\#(upd)]}"#, true),
            c("admin told something", #"{"e":"confirmed","t":5,"client":"admin","write":0}"#, false),
            c("a client not in the header", #"{"e":"queue","t":5,"client":"C","seq":3,"writes":[]}"#, false),
            c("a lower-case client", #"{"e":"queue","t":5,"client":"a","seq":3,"writes":[]}"#, false),
            c("a sequence number going back", #"{"e":"queue","t":5,"client":"A","seq":1,"writes":[]}"#, false),
            c("done with no open action", #"{"e":"done","t":5,"client":"A","seq":3}"#, false),
            c("a write id out of range", #"{"e":"confirmed","t":5,"client":"A","seq":3,"write":4194304}"#, false),
            c("confirmed", #"{"e":"confirmed","t":5,"client":"B","seq":1,"write":7}"#, true),
            c("a result, records out of order", yield(#"{"roots":[2,1],"records":[{"entity":2,"namespace":"todos","set":{"title":"b"}},{"entity":1,"namespace":"todos","set":{"done":true,"title":"a"}}]}"#), true),
            c("a result with a record twice", yield(#"{"roots":[1],"records":[{"entity":1,"namespace":"todos"},{"entity":1,"namespace":"todos"}]}"#), false),
            c("a result with a root twice", yield(#"{"roots":[1,1],"records":[]}"#), false),
            c("a result without records", yield(#"{"roots":[1]}"#), false),
            c("a record with set before namespace", yield(#"{"roots":[1],"records":[{"set":{"title":"a"},"entity":1,"namespace":"todos"}]}"#, #","fromCache":true,"connected":false"#), true),
            c("a record with links", yield(#"{"roots":[5],"records":[{"entity":5,"namespace":"posts","set":{"content":"hi","likes":3},"links":{"author":2}},{"entity":6,"namespace":"posts","links":{"author":null}}]}"#), true),
            c("a record with links before namespace", yield(#"{"roots":[5],"records":[{"links":{"author":2},"entity":5,"namespace":"posts"}]}"#), true),
            c("a link of another namespace", yield(#"{"roots":[5],"records":[{"entity":5,"namespace":"todos","links":{"author":2}}]}"#), false),
            c("a field of another namespace", write(#"{"op":"update","entity":1,"namespace":"todos","set":{"name":"x"}}"#), false),
            c("an unknown namespace", write(#"{"op":"update","entity":1,"namespace":"todoz","set":{}}"#), false),
            c("an int field at its limits", write(#"{"op":"update","entity":1,"namespace":"todos","set":{"priority":-9007199254740991,"done":true}}"#), true),
            c("an int field past its limit", write(#"{"op":"update","entity":1,"namespace":"todos","set":{"priority":9007199254740992}}"#), false),
            c("a string for an int field", write(#"{"op":"update","entity":1,"namespace":"todos","set":{"priority":"1"}}"#), false),
            c("every kind of op", write(#"{"op":"create","entity":9,"namespace":"posts","set":{"content":"c"}},{"op":"link","entity":9,"link":"author","target":2},{"op":"unlink","entity":9,"link":"author","target":2},{"op":"delete","entity":9,"namespace":"posts"}"#), true),
            c("a delete with a set", write(#"{"op":"delete","entity":1,"namespace":"todos","set":{}}"#), false),
            c("a link without target", write(#"{"op":"link","entity":9,"link":"author"}"#), false),
            c("an entity out of range", write(#"{"op":"delete","entity":1000000,"namespace":"todos"}"#), false),
            c("a silent queue", #"{"e":"queue","t":5,"client":"B","writes":[3,4],"silent":true}"#, true),
            c("a view", #"{"e":"view","t":5,"client":"B","sub":4,"result":{"roots":[],"records":[]}}"#, true),
            c("a commit with after", #"{"e":"commit","t":5,"tx":3,"origin":"admin","writes":[],"ops":[\#(upd)],"after":[{"entity":1,"namespace":"todos","set":{"title":"x"}}]}"#, true),
            c("deep nesting", #"{"e":"write","t":5,"client":"A","seq":3,"id":0,"ops":[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]}"#, false),
            c("an empty object", "{}", false),
            c("an array", "[]", false),
            c("a bare string", #""write""#, false),
            c("a kind the fast path leaves to the exact reader", #"{"e":"net","t":5,"client":"A","seq":3,"device":"offline"}"#, false),
            c("an unknown kind", #"{"e":"wrote","t":5}"#, false),
            c("a truncated line", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[1"#, false),
            c("a truncated string", #"{"e":"queue","t":5,"client":"A","seq":3,"writes":[],"x":"abc"#, false),
        ]
    }()

    /// Raw bytes no Swift string holds: invalid UTF-8, a control character, a lone surrogate.
    static let byteCases: [(String, [UInt8], Bool?)] = {
        func title(_ bytes: [UInt8]) -> [UInt8] {
            Array(#"{"e":"write","t":5,"client":"A","seq":3,"id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":""#.utf8)
                + bytes + Array(#""}}]}"#.utf8)
        }
        return [
            ("an invalid UTF-8 byte", title([0x61, 0xFF, 0x62]), false),
            ("an overlong encoding", title([0xC0, 0xAF]), false),
            ("an encoded surrogate", title([0xED, 0xA0, 0x80]), false),
            ("a truncated sequence", title([0x61, 0xE2, 0x82]), false),
            ("a control character", title([0x61, 0x01]), false),
            ("a lone surrogate escape", title(Array(#"\ud800x"#.utf8)), false),
            ("a NUL byte", title([0x00]), false),
            ("DEL is allowed", title([0x7F]), true),
            ("an escape at the very end", Array(#"{"e":"queue","t":5,"client":"A","seq":3,"writes":[],"x":"\"#.utf8), false),
        ]
    }()

    @Test(arguments: cases + byteCases)
    func edgeCaseDecodesTheSameBothWays(_ name: String, _ line: [UInt8], _ expectFast: Bool?) throws {
        let base = Self.lines([Self.header, Self.subscribe, Self.done])
        let (exact, _) = Self.judge(base + [line], fast: false)
        let (fast, taken) = Self.judge(base + [line], fast: true)
        let (_, takenBase) = Self.judge(base, fast: true)
        #expect(fast == exact, "\(name): fast \(fast) vs exact \(exact)")
        if let expectFast {
            #expect((taken > takenBase) == expectFast, "\(name): the fast path \(taken > takenBase ? "took" : "left") the line")
        }
        // Refusals by the fast path never invent an error: a line it takes is one the exact path accepts.
        if taken > takenBase, case .refused(let e) = exact { Issue.record("\(name): taken by the fast path but refused exactly: \(e)") }
    }

    /// A line the fast path takes is judged in order with lines it leaves: state changes made by
    /// either path are seen by the next line, whichever path reads it.
    @Test func pathsInterleave() throws {
        let story = Self.lines([
            Self.header, Self.subscribe, Self.done,
            #"{"e":"write","t":5,"client":"A","seq":3,"id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":"x"}}]}"#,
            #"{"e":"net","t":5,"client":"A","seq":4,"device":"offline"}"#,                    // exact
            #"{"e":"done","t":5,"client":"A","seq":5}"#,                                       // fast
            #"{"e":"queue","t":6,"client":"A","seq":6,"writes":[0]}"#,                         // fast
            #"{"e":"net","t":7,"client":"A","seq":7,"device":"online"}"#,                      // exact
            #"{"e":"commit","t":8,"tx":1,"origin":"A","writes":[0],"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":"x"}}]}"#,
            #"{"e":"confirmed","t":9,"client":"A","seq":8,"write":0}"#,
            #"{"e":"queue","t":9,"client":"A","seq":9,"writes":[]}"#,
            #"{"e":"end","t":10}"#,
        ])
        let (exact, _) = Self.judge(story, fast: false)
        let (fast, taken) = Self.judge(story, fast: true)
        #expect(fast == exact)
        #expect(taken == 7, "\(taken)")
        // After 'end', even a line the fast path could read is refused (by the exact reader).
        let after = story + Self.lines([#"{"e":"queue","t":11,"client":"A","seq":10,"writes":[]}"#])
        #expect(Self.judge(after, fast: true).0 == Self.judge(after, fast: false).0)
        if case .judged = Self.judge(after, fast: true).0 { Issue.record("a line after end was accepted") }
    }

    /// Random byte-level mutations of exported histories (a byte changed, removed, or a digit run
    /// or quote inserted): whatever each does, both paths end the same way — the same state or
    /// the same error. This is what guards against the fast path accepting a line the exact
    /// reader would refuse.
    @Test func mutatedLinesDecodeTheSameBothWays() throws {
        var r = SimRandom(seed: 15)
        var differing: [String] = []
        var fastTaken = 0
        for strategy in AnyStrategy.builtIns.prefix(3) {
            var lines: [String] = []
            _ = try strategy.run(strategy.schedule(seed: 1, .init(actions: 12)), seed: 1, history: { lines.append($0) })
            let base = Self.lines(lines)
            for _ in 0..<40 {
                var m = base
                let i = 1 + Int(r.below(UInt64(m.count - 1)))
                guard !m[i].isEmpty else { continue }
                let j = Int(r.below(UInt64(m[i].count)))
                switch r.below(5) {
                case 0: m[i][j] = UInt8(truncatingIfNeeded: r.below(256))
                case 1: m[i].remove(at: j)
                case 2: m[i].insert(contentsOf: Array("9999999999".utf8), at: j)
                case 3: m[i].insert(0x22, at: j)
                default: m[i][j] = [0x20, 0x2C, 0x7B, 0x7D, 0x5B, 0x5D, 0x3A, 0x5C][Int(r.below(8))]
                }
                let (exact, _) = Self.judge(m, fast: false)
                let (fast, taken) = Self.judge(m, fast: true)
                fastTaken += taken
                if fast != exact { differing.append("\(strategy.name) line \(i + 1): \(String(decoding: m[i], as: UTF8.self))") }
            }
        }
        #expect(differing.isEmpty, "\(differing.count) mutants judged differently, first: \(differing.first ?? "")")
        #expect(fastTaken > 0)
    }

    // MARK: - Reading a file in chunks

    /// Lines cut anywhere by chunk boundaries come out whole and numbered, CRLF trimmed, a last
    /// line without a newline included.
    @Test func lineSplitterReassemblesLinesAcrossChunks() throws {
        let text = Array("{\"a\":1}\r\n\n{\"bb\":22}\nxyz\n\n{\"last\":true}".utf8)
        let expected = ["{\"a\":1}", "", "{\"bb\":22}", "xyz", "", "{\"last\":true}"]
        for size in [1, 2, 3, 5, 8, 13, 64] {
            var s = HistoryCheck.LineSplitter()
            var got: [String] = []
            var numbers: [Int] = []
            let body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void = { l, n in got.append(String(decoding: l, as: UTF8.self)); numbers.append(n) }
            var k = 0
            while k < text.count {
                let piece = Array(text[k..<min(k + size, text.count)])
                try piece.withUnsafeBufferPointer { try s.feed($0, body) }
                k += size
            }
            try s.finish(body)
            #expect(got == expected, "chunks of \(size): \(got)")
            #expect(numbers == Array(1...expected.count))
        }
    }
}

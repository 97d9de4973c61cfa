import Foundation
import Testing
@testable import SyncSim

/// Hostile histories: every malformed line is a `HistoryFormatError` naming the line, the column
/// and JSON path where known, and what is expected — never a crash, a hang or a huge allocation.
@Suite struct MalformedHistoryTests {
    static let header = #"{"syncsim":"history","version":1,"clients":2}"#

    /// The error for `line` as the second line of a history.
    static func error(_ line: String, header: String = header) -> HistoryFormatError? {
        do {
            _ = try HistoryCheck.check(lines: [header, line], file: "bad.jsonl")
            return nil
        } catch {
            return error
        }
    }

    @Test(arguments: [
        (#"{"e":"write","t":1,"client":"A","id":0,"ops":[}"#, "ops[0]", "not valid JSON"),
        (#"{"e":"wrote","t":1}"#, "e", "did you mean 'write'?"),
        (#"{"e":"write","t":1,"client":"A","id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"titel":"x"}}]}"#, "ops[0].set.titel", "not a field of todos"),
        (#"{"e":"write","t":1,"client":"A","id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":3}}]}"#, "ops[0].set.title", "expected a string value"),
        (#"{"e":"write","t":1,"client":"A","id":99999999999,"ops":[]}"#, "id", "not a whole number in 0…4194303"),
        (#"{"e":"write","t":1,"client":"A","id":0,"ops":[{"op":"update","entity":4000000000,"namespace":"todos","set":{}}]}"#, "ops[0].entity", "0…999999"),
        (#"{"e":"write","t":1,"client":"Q","id":0,"ops":[]}"#, "client", "A, B"),
        (#"{"e":"write","t":-5,"client":"A","id":0,"ops":[]}"#, "t", "not a whole number"),
        (#"{"e":"write","t":1.5,"client":"A","id":0,"ops":[]}"#, "t", "not a whole number"),
        (#"{"e":"commit","t":1,"tx":1,"origin":"A","writes":[0],"ops":[],"extra":1}"#, "extra", "unknown key"),
        (#"{"e":"yield","t":1,"client":"A","sub":1,"result":{"roots":[1],"records":[{"entity":1,"namespace":"todos"},{"entity":1,"namespace":"todos"}]}}"#, "result.records", "appears twice"),
        (#"{"e":"done","t":1,"client":"A"}"#, "client", "no user action of A is open"),
        (#"{"e":"net","t":1,"client":"A","device":"sideways"}"#, "device", "\"online\" or \"offline\""),
        (#"[1,2,3]"#, "", "expected an object"),
        (#"{"e":"write","t":1,"client":"A","id":0,"ops":[{"op":"updte","entity":1,"namespace":"todos","set":{}}]}"#, "ops[0].op", "did you mean 'update'?"),
    ])
    func malformedLineNamesLineAndField(_ line: String, _ path: String, _ message: String) throws {
        let e = try #require(Self.error(line))
        #expect(e.file == "bad.jsonl")
        #expect(e.line == 2, "\(e)")
        #expect(e.path == path, "\(e)")
        #expect(e.message.contains(message), "\(e)")
        #expect(e.description.hasPrefix("bad.jsonl:2:"), "\(e)")
    }

    @Test func headerProblems() throws {
        func headerError(_ h: String) -> HistoryFormatError? {
            do { _ = try HistoryCheck.check(lines: [h]); return nil } catch { return error }
        }
        #expect(headerError(#"{"e":"write","t":1}"#)?.message.contains("the first line must be the header") == true)
        #expect(headerError(#"{"syncsim":"history","version":2,"clients":2}"#)?.message.contains("unsupported version 2") == true)
        #expect(headerError(#"{"syncsim":"history","version":1,"clients":27}"#)?.path == "clients")
        #expect(headerError(#"{"syncsim":"history","version":1,"clients":2,"schema":"nots"}"#)?.message.contains("unknown schema") == true)
        #expect(headerError(#"{"syncsim":"history","version":1,"clients":2,"contract":["noGhostDeletio"]}"#)?.message.contains("did you mean 'noGhostDeletion'?") == true)
        #expect(headerError(#"{"syncsim":"history","version":1,"clients":2,"skews":[1]}"#)?.path == "skews")
        do { _ = try HistoryCheck.check(lines: []); Issue.record("an empty history was accepted") } catch {
            #expect(error.message.contains("the file is empty"))
        }
    }

    @Test func orderAndUniquenessAreChecked() throws {
        let w = #"{"e":"write","t":1,"client":"A","seq":5,"id":0,"ops":[]}"#
        let again = #"{"e":"write","t":2,"client":"A","seq":6,"id":0,"ops":[]}"#
        let back = #"{"e":"write","t":2,"client":"A","seq":4,"id":1,"ops":[]}"#
        let other = #"{"e":"write","t":2,"client":"B","seq":1,"id":1,"ops":[]}"#
        do { _ = try HistoryCheck.check(lines: [Self.header, w, again]); Issue.record("a repeated write id was accepted") } catch {
            #expect(error.line == 3 && error.path == "id" && error.message.contains("already made"), "\(error)")
        }
        do { _ = try HistoryCheck.check(lines: [Self.header, w, back]); Issue.record("a sequence number going back was accepted") } catch {
            #expect(error.line == 3 && error.path == "seq", "\(error)")
        }
        // Another device's sequence numbers are its own.
        #expect(throws: Never.self) { try HistoryCheck.check(lines: [Self.header, w, other]) }
        do { _ = try HistoryCheck.check(lines: [Self.header, #"{"e":"end","t":1}"#, w]); Issue.record("a line after end was accepted") } catch {
            #expect(error.line == 3 && error.message.contains("after the 'end' line"), "\(error)")
        }
    }

    /// Through a file: a line longer than the limit is refused without being read whole, CRLF and
    /// blank lines are fine, and the error names the file.
    @Test func streamingReaderLimitsLines() throws {
        let dir = FileManager.default.temporaryDirectory.path
        let ok = "\(dir)/syncsim-history-ok-\(getpid()).jsonl"
        try (Self.header + "\r\n\r\n" + #"{"e":"end","t":1}"# + "\r\n").write(toFile: ok, atomically: true, encoding: .utf8)
        #expect(try HistoryCheck.check(path: ok).lines == 2)
        let long = "\(dir)/syncsim-history-long-\(getpid()).jsonl"
        let huge = #"{"e":"notice","t":1,"client":"A","text":""# + String(repeating: "x", count: HistoryLimits.maxLineBytes + 10) + "\"}"
        try (Self.header + "\n" + huge + "\n").write(toFile: long, atomically: true, encoding: .utf8)
        do { _ = try HistoryCheck.check(path: long); Issue.record("a line over the limit was accepted") } catch {
            #expect(error.file == long && error.line == 2 && error.message.contains("longer than"), "\(error)")
        }
        do { _ = try HistoryCheck.check(path: "\(dir)/no-such-history-\(getpid()).jsonl"); Issue.record("a missing file was accepted") } catch {
            #expect(error.message.contains("cannot read the file"))
        }
        try? FileManager.default.removeItem(atPath: ok)
        try? FileManager.default.removeItem(atPath: long)
    }

    /// Random byte-level mutations of a valid exported history: each is either accepted or a
    /// `HistoryFormatError`; nothing traps (a trap fails the whole test run).
    @Test func mutatedHistoriesNeverCrash() throws {
        let strategy = AnyStrategy.builtIns[0]
        var lines: [String] = []
        _ = try strategy.run(strategy.schedule(seed: 2, .init(actions: 15)), seed: 2, history: { lines.append($0) })
        var r = SimRandom(seed: 77)
        var refused = 0
        for _ in 0..<60 {
            var m = lines
            let i = Int(r.below(UInt64(m.count)))
            var bytes = Array(m[i].utf8)
            guard !bytes.isEmpty else { continue }
            let j = Int(r.below(UInt64(bytes.count)))
            switch r.below(3) {
            case 0: bytes[j] = UInt8(truncatingIfNeeded: r.below(256))
            case 1: bytes.remove(at: j)
            default: bytes.insert(contentsOf: Array("-99999999999".utf8), at: j)
            }
            m[i] = String(decoding: bytes, as: UTF8.self)
            do { _ = try HistoryCheck.check(lines: m) } catch { refused += 1 }
        }
        #expect(refused > 20, "most mutants should be refused; \(refused)")
    }
}

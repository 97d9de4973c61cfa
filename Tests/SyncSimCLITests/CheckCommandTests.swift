import Foundation
import Testing
import SyncSimCLI

/// `check` through the CLI: exit 0 for a clean history, 1 for a violation of the contract
/// (and 0 for the same violation when the contract does not claim it), 2 for a malformed line
/// with file:line:column: path in the message; `run --history` writes what `check` reads back.
@Suite struct CheckCommandTests {
    static func file(_ name: String, _ lines: [String]) throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-check-\(getpid())-\(name).jsonl").path
        try (lines.joined(separator: "\n") + "\n").write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    static let header = #"{"syncsim":"history","version":1,"clients":1,"arbitration":"serverArrival","contract":["noGhostDeletion"],"initial":[{"entity":1,"namespace":"todos","set":{"title":"milk"}}]}"#
    static let ghost = #"{"e":"commit","t":10,"tx":1,"origin":"A","writes":[],"ops":[{"op":"delete","entity":1,"namespace":"todos"}]}"#

    @Test func exitCodes() throws {
        let clean = try Self.file("clean", [Self.header, #"{"e":"end","t":10}"#])
        let c = NotesTool.run(["check", clean])
        #expect(c.status == 0, "\(c.stdout)\(c.stderr)")
        #expect(c.stdout.contains("violations  none") && c.stdout.contains("not run"))

        let bad = try Self.file("ghost", [Self.header, Self.ghost])
        let b = NotesTool.run(["check", bad])
        #expect(b.status == 1, "\(b.stdout)\(b.stderr)")
        #expect(b.stdout.contains("VIOLATION [claimed]") && b.stdout.contains("noGhostDeletion"))
        // Not claimed under another contract: reported, exit 0.
        let other = NotesTool.run(["check", bad, "--contract", "noResurrection,convergence"])
        #expect(other.status == 0, "\(other.stdout)\(other.stderr)")
        #expect(other.stdout.contains("VIOLATION [not claimed]"))
        // A strategy's contract: sharedDiff does not claim noGhostDeletion, reference does.
        #expect(NotesTool.run(["check", bad, "--contract", "sharedDiff"]).status == 0)
        #expect(NotesTool.run(["check", bad, "--contract", "reference"]).status == 1)
        let json = NotesTool.run(["check", bad, "--json"])
        #expect(json.status == 1 && json.stdout.contains(#""contractMet":false"#))

        let malformed = try Self.file("malformed", [Self.header, #"{"e":"commit","t":10,"tx":1,"origin":"A","writes":[],"ops":[{"op":"delete","entity":1,"namespace":"todoz"}]}"#])
        let m = NotesTool.run(["check", malformed])
        #expect(m.status == 2)
        #expect(m.stderr.contains("\(malformed):2:") && m.stderr.contains("ops[0].namespace") && m.stderr.contains("did you mean 'todos'?"), "\(m.stderr)")

        #expect(NotesTool.run(["check"]).status == 2)
        #expect(NotesTool.run(["check", bad, "--contract", "noSuchThing"]).status == 2)
        let wrongRule = NotesTool.run(["check", bad, "--arbitration", "wallClock"])
        #expect(wrongRule.status == 2)
        let help = NotesTool.run(["help", "check"])
        #expect(help.status == 0 && help.stdout.contains("USAGE: notes-sim check HISTORY.jsonl"))
        // Every rule is offered, in the help and in the error: recordTimestamp was once missing from both.
        for rule in Arbitration.allCases {
            #expect(wrongRule.stderr.contains(rule.rawValue), "\(rule) missing from: \(wrongRule.stderr)")
            #expect(help.stdout.contains(rule.rawValue), "\(rule) missing from check's help")
        }
    }

    /// A roundtrip over a range as long as asked stops cleanly at its budget and says so;
    /// the budget belongs to --roundtrip only.
    @Test func aRoundtripStopsAtItsTimeBudget() {
        let r = NotesTool.run(["check", "--roundtrip", "0..<1000000", "--strategy", "notesHonest", "--time-budget", "300ms"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.contains("stopped by the time budget") && r.stdout.contains("exact so far"))
        let misplaced = NotesTool.run(["check", "--time-budget", "1s", "x.jsonl"])
        #expect(misplaced.status == 2 && misplaced.stderr.contains("--time-budget goes with --roundtrip"))
    }

    @Test func runExportsWhatCheckReadsBack() throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-check-\(getpid())-run.jsonl").path
        let run = NotesTool.run(["run", "--strategy", "sharedDiff", "--seed", "0", "--history", path, "--json"])
        #expect(run.status == 0)
        let check = NotesTool.run(["check", path, "--json", "--contract", "sharedDiff"])
        #expect(check.status == 0, "\(check.stderr)")
        // The same violations: compare the (invariant, time, explanation) lists of both outputs.
        func triples(_ s: String) throws -> [String] {
            let o = try JSONSerialization.jsonObject(with: Data(s.utf8)) as! [String: Any]
            return (o["violations"] as! [[String: Any]]).map { "\($0["invariant"]!) \($0["timeMs"] ?? $0["time"]!) \($0["explanation"]!)" }
        }
        let a = try triples(run.stdout), b = try triples(check.stdout)
        #expect(!a.isEmpty && a == b, "\(a) vs \(b)")
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-check-\(getpid())-reports").path
        #expect(NotesTool.run(["check", path, "--report-dir", dir]).status == 0)
        for f in ["report.md", "report.html", "report.json", "junit.xml"] { #expect(FileManager.default.fileExists(atPath: "\(dir)/\(f)")) }
    }

    /// `replay FILE --history OUT` writes the scenario's run; `check OUT` finds its violations.
    @Test func replayExportsToo() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let scenario = root.appendingPathComponent("Scenarios/deletes/ghost-deletion-two-subscriptions.json").path
        let out = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-check-\(getpid())-replay.jsonl").path
        let replay = NotesTool.run(["replay", scenario, "--history", out])
        #expect(replay.status == 0, "\(replay.stderr)")
        let check = NotesTool.run(["check", out, "--contract", "noResurrection"])
        #expect(check.status == 0, "\(check.stderr)")
        let told = replay.stdout.split(separator: "\n").filter { $0.hasPrefix("VIOLATION ") }.map { $0.dropFirst("VIOLATION ".count) }
        let found = check.stdout.split(separator: "\n").filter { $0.hasPrefix("VIOLATION ") }.map { $0.split(separator: "] ", maxSplits: 1).last! }
        #expect(!told.isEmpty && told.map(String.init) == found.map(String.init), "\(told) vs \(found)")
        // One scenario only.
        #expect(NotesTool.run(["replay", scenario, scenario, "--history", out]).status == 2)
    }
}

import Foundation
import Testing
import SyncSimCLI

/// The conventions users expect of a command line (swift-argument-parser's, git's): version,
/// `help <command>`, suggestions for typos, repeated options and stray arguments refused, Swift
/// range syntax, every number range-checked with the range in the message. In-process, so fast.
@Suite struct CLIConventionTests {
    static func run(_ args: [String]) -> (status: Int32, stdout: String, stderr: String) {
        NotesTool.run(args, strategies: AnyStrategy.builtIns)
    }

    @Test func versionAndHelpForACommand() {
        let v = Self.run(["--version"])
        #expect(v.status == 0 && v.stdout.hasPrefix("notes-sim \(SyncSimCLI.version) (report format 1, scenario format 1, "))
        let h = Self.run(["help", "fuzz"])
        #expect(h.status == 0 && h.stdout.hasPrefix("USAGE: notes-sim fuzz"))
        #expect(h.stdout == Self.run(["fuzz", "--help"]).stdout)
        let bad = Self.run(["help", "fuzzz"])
        #expect(bad.status == 2 && bad.stderr.contains("unknown command 'fuzzz' (did you mean 'fuzz'?)"))
        #expect(Self.run(["help", "fuzz", "run"]).status == 2)
    }

    @Test func unknownOptionsGetTheClosestRealOne() {
        let cases: [([String], String)] = [
            (["fuzz", "--seed", "3"], "unknown option '--seed' for 'fuzz' (did you mean '--seeds'?)"),
            (["run", "--strategy", "instant", "--seeds", "3"], "unknown option '--seeds' for 'run' (did you mean '--seed'?)"),
            (["run", "--strategy", "instant", "--seed", "1", "--jsn"], "(did you mean '--json'?)"),
            (["fuzz", "--time-budgte", "5s"], "(did you mean '--time-budget'?)"),
        ]
        for (args, message) in cases {
            let o = Self.run(args)
            #expect(o.status == 2, "\(args)")
            #expect(o.stderr.contains(message), "\(args): \(o.stderr)")
        }
    }

    @Test func repeatedOptionsAndStrayArgumentsAreRefusedByName() {
        let cases: [([String], String)] = [
            (["fuzz", "--seeds", "0..2", "--seeds", "0..3"], "--seeds is given more than once"),
            (["fuzz", "--seeds=0..2", "--seeds", "0..3"], "--seeds is given more than once"),
            (["run", "--strategy", "instant", "--seed", "1", "--seed", "2"], "--seed is given more than once"),
            (["fuzz", "--quiet", "--quiet"], "--quiet is given more than once"),
            (["run", "--strategy", "instant", "--seed", "1", "extra"], "unexpected argument 'extra' for 'run'"),
            (["run", "--strategy", "instant", "--seed", "1", "--json=yes"], "--json is a flag and takes no value"),
            (["list", "strategies", "invariants"], "'list' takes one name"),
            (["run", "--strategy", "instant", "--seed"], "--seed needs a value"),
        ]
        for (args, message) in cases {
            let o = Self.run(args)
            #expect(o.status == 2, "\(args)")
            #expect(o.stderr.hasPrefix("error: ") && o.stderr.contains(message), "\(args): \(o.stderr)")
        }
    }

    @Test func everyNumberIsRangeCheckedWithTheRangeInTheMessage() {
        let cases: [([String], String)] = [
            (["run", "--strategy", "instant", "--seed", "18446744073709551616"], "0…18446744073709551615"),
            (["run", "--strategy", "instant", "--seed", "-1"], "0…18446744073709551615"),
            (["run", "--strategy", "instant", "--seed", "1", "--actions", "100001"], "1…100000"),
            (["run", "--strategy", "instant", "--seed", "1", "--clients", "27"], "1…26"),
            (["fuzz", "--count", "0"], "1…100000000"),
            (["fuzz", "--jobs", "99999"], "1…1024"),
            (["fuzz", "--start", "18446744073709551600"], "at most 15 seeds start at 18446744073709551600"),
            (["fuzz", "--time-budget", "inf"], "from 0 to 30 days"),
            (["fuzz", "--time-budget", "1e400"], "from 0 to 30 days"),
            (["fuzz", "--seeds", "0...18446744073709551615"], "use 0..<18446744073709551615"),
            (["bench", "--seeds", "0"], "1…1000000"),
            (["bench", "--rounds", "0"], "1…100"),
            (["bench", "--flat", "3000,200"], "1 ≤ SHORT < LONG ≤ 100000"),
            (["bench", "--flat", "200"], "1 ≤ SHORT < LONG ≤ 100000"),
        ]
        for (args, message) in cases {
            let o = Self.run(args)
            #expect(o.status == 2, "\(args)")
            #expect(o.stderr.contains(message), "\(args): \(o.stderr)")
            #expect(!o.stderr.contains("Fatal error"))
        }
    }

    /// `0...B` includes B, `0..<B` and `0..B` exclude it: three spellings, one report option.
    @Test func swiftRangeSyntaxIsAccepted() throws {
        var seeds: [String] = []
        for spelling in ["0...2", "0..<3", "0..3"] {
            let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-ranges-\(getpid())-\(seeds.count)").path
            let o = Self.run(["fuzz", "--strategy", "reference", "--seeds", spelling, "--actions", "5", "--no-shrink", "--quiet", "--report-dir", dir])
            #expect(o.status == 0, "\(spelling): \(o.stderr)")
            let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as! [String: Any]
            seeds.append((j["options"] as? [String: Any])?["seeds"] as? String ?? "?")
            #expect(j["seedsRun"] as? Int == 3)
        }
        #expect(seeds == ["0..<3", "0..<3", "0..<3"])
        for empty in ["3..<3", "3...2", "5..3", "0....3", "..3", "0..", "0..<-1"] {
            let o = Self.run(["fuzz", "--seeds", empty])
            #expect(o.status == 2 && o.stderr.contains("--seeds"), "\(empty): \(o.stderr)")
        }
    }

    /// A hostile value never reaches the terminal raw: control characters are shown escaped and
    /// long values are cut.
    @Test func hostileValuesAreShownSafely() {
        let o = Self.run(["run", "--strategy", "instant", "--seed", "\u{1B}[2J\0" + String(repeating: "9", count: 5000)])
        #expect(o.status == 2)
        #expect(!o.stderr.contains("\u{1B}") && !o.stderr.contains("\0"))
        #expect(o.stderr.contains("\\u{1b}[2J\\u{0}") && o.stderr.contains("(5005 characters)"))
        #expect(o.stderr.utf8.count < 400)
    }

    /// `run` judges like `fuzz`: exit 1 only for an invariant the strategy claims; every
    /// violation is marked claimed or not, in text and JSON.
    @Test func runExitsOneOnlyForContractViolations() throws {
        // sharedDiff (known-bad) violates invariants it does not claim at seed 0.
        let text = Self.run(["run", "--strategy", "sharedDiff", "--seed", "0"])
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.stdout.contains("[not claimed]") && text.stdout.contains("contract    met"))
        let json = Self.run(["run", "--strategy", "sharedDiff", "--seed", "0", "--json"])
        let j = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        let violations = try #require(j["violations"] as? [[String: Any]])
        #expect(!violations.isEmpty && violations.allSatisfy { $0["claimed"] as? Bool == false })
        #expect(j["contractMet"] as? Bool == true)
        // A strategy that claims what it breaks: exit 1, marked claimed.
        let liar = NotesTool.run(["run", "--strategy", "notesSync", "--seed", "1", "--json"])
        #expect(liar.status == 1)
        let lj = try #require(try JSONSerialization.jsonObject(with: Data(liar.stdout.utf8)) as? [String: Any])
        #expect(lj["contractMet"] as? Bool == false)
        #expect((lj["violations"] as? [[String: Any]] ?? []).contains { $0["claimed"] as? Bool == true && $0["invariant"] as? String == "noResurrection" })
    }

    /// Long commands say on stderr when the binary is a debug build (never before a usage error).
    @Test func debugBuildNote() {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-note-\(getpid())").path
        let o = Self.run(["fuzz", "--strategy", "reference", "--seeds", "0..1", "--actions", "3", "--quiet", "--report-dir", dir])
        #expect(o.status == 0)
        #if DEBUG
        #expect(o.stderr.contains("note: this is a debug build of notes-sim"))
        #else
        #expect(!o.stderr.contains("debug build"))
        #endif
        #expect(!Self.run(["fuzz", "--bogus"]).stderr.contains("note:"))
    }
}

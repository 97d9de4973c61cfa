import Foundation
import Testing
import SyncSimCLI

/// `SyncSimCLI.run` in-process with a user's strategies: every command finds them by name,
/// judges them by their own contracts, and speaks with the tool's own command name.
@Suite struct InProcessCLITests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("notes-sim-\(getpid())-\(name)").path
    }

    @Test func listStrategiesShowsTheUserStrategyWithItsContract() {
        let o = NotesTool.run(["list", "strategies"])
        #expect(o.status == 0)
        #expect(o.stdout.contains("notesSync\n  our notes app's sync engine"))
        #expect(o.stdout.contains("contract: convergence, noResurrection"))
        #expect(o.stdout.contains("instant") && o.stdout.contains("reference"))
    }

    @Test func fuzzFindsTheUserStrategyAndReportsItsBrokenClaim() throws {
        let dir = Self.tmp("liar")
        let o = NotesTool.run(["fuzz", "--strategy", "notesSync", "--seeds", "0..4", "--no-shrink", "--quiet", "--report-dir", dir])
        #expect(o.status == 1, "\(o.stderr)")
        #expect(o.stdout.contains("notesSync       CONTRACT VIOLATED: noResurrection"))
        let junit = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        #expect(junit.contains("<testsuite name=\"notesSync\""))
        #expect(junit.contains("<failure") && junit.contains("notes-sim run --strategy notesSync --seed 1"))
    }

    @Test func fuzzOfAnHonestUserStrategyIsGreenAndShrunkReplaysWork() throws {
        let dir = Self.tmp("honest")
        let o = NotesTool.run(["fuzz", "--strategy", "notesHonest", "--strategy", "fullEntity", "--seeds", "0..3", "--quiet", "--report-dir", dir])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.contains("notesHonest     met its contract"))
        let report = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as! [String: Any]
        let failures = report["failures"] as? [[String: Any]] ?? []
        let shrunk = try #require(failures.first { ($0["strategy"] as? String) == "notesHonest" && $0["scenario"] != nil })
        let replay = try #require(shrunk["replay"] as? String)
        #expect(replay.hasPrefix("swift run notes-sim replay \(dir)/scenarios/notesHonest-"))
        // The command printed in the report works in this tool.
        let file = String(replay.dropFirst("swift run notes-sim replay ".count))
        let r = NotesTool.run(["replay", file, "--quiet"])
        #expect(r.status == 0, "\(r.stdout)\(r.stderr)")
        #expect(r.stdout.hasPrefix("ok "))
    }

    @Test func unknownNamesGetASuggestionAndExit2() {
        for args in [["fuzz", "--strategy", "notesSink"], ["run", "--strategy", "notessync", "--seed", "1"], ["shrink", "--strategy", "noteSync", "--seed", "1"]] {
            let o = NotesTool.run(args)
            #expect(o.status == 2, "\(args)")
            #expect(o.stderr.contains("(did you mean 'notesSync'?)"), "\(args): \(o.stderr)")
            #expect(o.stderr.contains("See 'notes-sim \(args[0]) --help'."))
        }
        let cmd = NotesTool.run(["fuz"])
        #expect(cmd.status == 2 && cmd.stderr.contains("(did you mean 'fuzz'?)"))
        // A tool without the built-ins does not know them.
        let only = NotesTool.run(["run", "--strategy", "instant", "--seed", "1"], strategies: [NotesTool.liar])
        #expect(only.status == 2 && only.stderr.contains("valid values: notesSync"))
    }

    @Test func runAndShrinkWorkOnTheUserStrategy() throws {
        let run = NotesTool.run(["run", "--strategy", "notesSync", "--seed", "1"])
        #expect(run.status == 1)
        #expect(run.stdout.contains("strategy    notesSync") && run.stdout.contains("noResurrection"))
        let out = Self.tmp("shrunk.json")
        let shrink = NotesTool.run(["shrink", "--strategy", "notesSync", "--seed", "1", "--invariant", "noResurrection", "--out", out])
        #expect(shrink.status == 0, "\(shrink.stderr)")
        #expect(shrink.stdout.contains("replay:  swift run notes-sim replay \(out)"))
        let replay = NotesTool.run(["replay", out])
        #expect(replay.status == 0 && replay.stdout.contains("expectation met: noResurrection under notesSync"))
    }

    @Test func helpUsesTheToolsName() {
        let root = NotesTool.run(["--help"])
        #expect(root.status == 0 && root.stdout.hasPrefix("notes-sim — ") && root.stdout.contains("notes-sim run --strategy"))
        let fuzz = NotesTool.run(["fuzz", "--help"])
        #expect(fuzz.stdout.contains("USAGE: notes-sim fuzz") && !fuzz.stdout.contains("syncsim"))
    }

    @Test func sameReportWithOneOrTwoJobs() throws {
        var reports: [NSDictionary] = []
        for jobs in ["1", "2"] {
            let dir = Self.tmp("jobs\(jobs)")
            let o = NotesTool.run(["fuzz", "--strategy", "notesSync", "--strategy", "instant", "--seeds", "0..5", "--jobs", jobs, "--quiet", "--report-dir", dir])
            #expect(o.status == 1, "\(o.stderr)")
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))
            var j = try JSONSerialization.jsonObject(with: data) as! [String: Any]
            j["timing"] = nil
            if var failures = j["failures"] as? [[String: Any]] {
                for i in failures.indices { failures[i]["replay"] = nil }
                j["failures"] = failures
            }
            reports.append(j as NSDictionary)
        }
        #expect(reports[0] == reports[1])
    }

    @Test func invalidStrategyListsAreExit2() {
        let dup = NotesTool.run(["list"], strategies: [NotesTool.liar, NotesTool.liar])
        #expect(dup.status == 2 && dup.stderr.contains("two strategies are named 'notesSync'"))
        let none = NotesTool.run(["list"], strategies: [])
        #expect(none.status == 2 && none.stderr.contains("no strategies"))
    }
}

import Foundation
import Testing
import SyncSimCLI

/// `SyncSimCLI.run(…, invariants:)` in-process: a user invariant is a peer of the built-ins in
/// every command and report — claimed and broken fails the run (exit 1, a JUnit `<failure>`),
/// unclaimed and broken is reported as expected (exit 0) — and a bad list of invariants is a
/// usage error before anything runs.
@Suite struct UserInvariantCLITests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("notes-sim-uinv-\(getpid())-\(name)").path
    }

    /// The `<testcase>` element of `name` in suite `suite` of a junit.xml text.
    static func testcase(_ junit: String, suite: String, name: String) -> String? {
        guard let s = junit.range(of: "<testsuite name=\"\(suite)\"") else { return nil }
        let rest = junit[s.upperBound...]
        guard let start = rest.range(of: "<testcase classname=\"syncsim.\(suite)\" name=\"\(name)\">") else { return nil }
        guard let end = rest[start.upperBound...].range(of: "</testcase>") else { return nil }
        return String(rest[start.lowerBound..<end.upperBound])
    }

    @Test func aClaimedUserInvariantThatBreaksFailsTheFuzzRun() throws {
        let dir = Self.tmp("claimed")
        let o = NotesInvariants.run(["fuzz", "--strategy", "notesStrict", "--seeds", "0..4", "--quiet", "--report-dir", dir])
        #expect(o.status == 1, "\(o.stdout)\(o.stderr)")
        #expect(o.stdout.contains("notesStrict     CONTRACT VIOLATED: noServerDelete"), "\(o.stdout)")

        let junit = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        let tc = try #require(Self.testcase(junit, suite: "notesStrict", name: "noServerDelete"), "\(junit)")
        #expect(tc.contains("<failure") && tc.contains("type=\"contractViolation\""), "\(tc)")
        #expect(tc.contains("user invariant: the server never applies a delete"))
        #expect(tc.contains("notes-sim replay"))
        // Built-ins are still test cases of their own, and convergence held.
        let conv = try #require(Self.testcase(junit, suite: "notesStrict", name: "convergence"))
        #expect(!conv.contains("<failure"))

        let md = try String(contentsOfFile: "\(dir)/report.md", encoding: .utf8)
        #expect(md.contains("**Contract violated:** notesStrict"))
        let row = try #require(md.split(separator: "\n").first { $0.hasPrefix("| `noServerDelete` (user) |") }, "\(md)")
        #expect(row.contains("❌◆"), "\(row)")
        #expect(md.contains("| `noServerDelete` | the server never applies a delete (notes are archived, not deleted) |"))
        #expect(md.contains("### notesStrict · `noServerDelete` · seed 1 · **contract violation**"), "\(md)")
        // The column comes after every built-in.
        let liveness = try #require(md.range(of: "| `liveness` |"))
        #expect(md.range(of: "| `noServerDelete` (user) |")!.lowerBound > liveness.lowerBound)

        let html = try String(contentsOfFile: "\(dir)/report.html", encoding: .utf8)
        #expect(html.contains("<th class=\"inv user\" title=\"the server never applies a delete (notes are archived, not deleted)\"><span>noServerDelete (user)</span></th>"))

        // report.json carries what merge needs: the summary, with the strategy that was judged by it.
        let json = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as! [String: Any]
        let strategy = try #require((json["strategies"] as? [[String: Any]])?.first)
        #expect(strategy["contract"] as? [String] == ["convergence", "noServerDelete"])
        #expect(strategy["contractViolations"] as? [String] == ["noServerDelete"])
        let users = try #require(strategy["userInvariants"] as? [[String: String]])
        #expect(users == [["id": "noServerDelete", "summary": "the server never applies a delete (notes are archived, not deleted)"]])

        // The failure was shrunk, and the scenario the report names replays in this tool.
        let failures = json["failures"] as? [[String: Any]] ?? []
        let f = try #require(failures.first { ($0["invariant"] as? String) == "noServerDelete" })
        #expect(f["claimed"] as? Bool == true)
        let scenario = try #require(f["scenario"] as? String)
        #expect(scenario == "scenarios/notesStrict-noServerDelete-seed1.json")
        let shrunk = try #require(f["shrunkActions"] as? Int)
        #expect(shrunk <= 3, "a delete needs at most a create, a delete and little else; got \(shrunk)")
        let replay = NotesInvariants.run(["replay", "\(dir)/\(scenario)"])
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        #expect(replay.stdout.contains("expectation met: noServerDelete under notesStrict"))
        // A tool without the invariant cannot judge that expectation, and says so (exit 2).
        let without = NotesInvariants.run(["replay", "\(dir)/\(scenario)"], strategies: AnyStrategy.builtIns, invariants: [])
        #expect(without.status == 2 && without.stderr.contains("unknown expectation 'noServerDelete'"), "\(without.stderr)")
    }

    @Test func anUnclaimedUserInvariantThatBreaksIsReportedAsExpected() throws {
        let dir = Self.tmp("unclaimed")
        let o = NotesInvariants.run(["fuzz", "--strategy", "reference", "--seeds", "0..4", "--no-shrink", "--quiet", "--report-dir", dir])
        #expect(o.status == 0, "\(o.stdout)\(o.stderr)")
        #expect(o.stdout.contains("reference       met its contract   [not claimed, expected: noServerDelete "), "\(o.stdout)")

        let junit = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        #expect(!junit.contains("<failure"))
        let tc = try #require(Self.testcase(junit, suite: "reference", name: "noServerDelete"), "\(junit)")
        #expect(tc.contains("<skipped message=\"not claimed by reference:"), "\(tc)")
        let md = try String(contentsOfFile: "\(dir)/report.md", encoding: .utf8)
        #expect(md.contains("**Every strategy met its contract.**"))
        let row = try #require(md.split(separator: "\n").first { $0.hasPrefix("| `noServerDelete` (user) |") })
        #expect(row.contains("⚠️") && !row.contains("◆"), "\(row)")
    }

    @Test func listShowsUserInvariantsNextToTheBuiltIns() {
        let inv = NotesInvariants.run(["list", "invariants"])
        #expect(inv.status == 0)
        let lines = inv.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let i = lines.firstIndex { $0.hasPrefix("noServerDelete ") }
        #expect(i != nil, "\(inv.stdout)")
        guard let i else { return }
        #expect(lines[i].contains("safety") && lines[i].contains("the server never applies a delete") && lines[i].hasSuffix("(user-defined)"))
        #expect(lines[i - 1].hasPrefix("liveness "))
        #expect(lines[i + 1].hasSuffix("Our notes app archives instead of deleting."))
        // Without user invariants the list is the built-ins alone.
        let plain = NotesInvariants.run(["list", "invariants"], strategies: AnyStrategy.builtIns, invariants: [])
        #expect(!plain.stdout.contains("noServerDelete") && !plain.stdout.contains("user-defined"))

        let strategies = NotesInvariants.run(["list", "strategies"])
        #expect(strategies.stdout.contains("notesStrict\n  our notes app's sync engine"))
        #expect(strategies.stdout.contains("contract: convergence, noServerDelete (user)"), "\(strategies.stdout)")
    }

    @Test func shrinkAcceptsAUserInvariant() throws {
        let out = Self.tmp("shrunk.json")
        // Unclaimed by instant, and still shrinkable: shrinking is about the failure, not the claim.
        let o = NotesInvariants.run(["shrink", "--strategy", "instant", "--seed", "1", "--invariant", "noServerDelete", "--out", out])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.contains("noServerDelete") && o.stdout.contains("replay:  swift run notes-sim replay \(out)"))
        let replay = NotesInvariants.run(["replay", out])
        #expect(replay.status == 0, "\(replay.stdout)\(replay.stderr)")
        #expect(replay.stdout.contains("expectation met: noServerDelete under instant"))

        let typo = NotesInvariants.run(["shrink", "--strategy", "instant", "--seed", "1", "--invariant", "noServerDelet"])
        #expect(typo.status == 2)
        #expect(typo.stderr.contains("unknown invariant 'noServerDelet' for --invariant (did you mean 'noServerDelete'?)"), "\(typo.stderr)")
        #expect(typo.stderr.contains("liveness, noServerDelete"))
        // Without the invariant the tool does not know the name.
        let unknown = NotesInvariants.run(["shrink", "--strategy", "instant", "--seed", "1", "--invariant", "noServerDelete"],
                                       strategies: AnyStrategy.builtIns, invariants: [])
        #expect(unknown.status == 2 && unknown.stderr.contains("unknown invariant 'noServerDelete'"))
    }

    @Test func runPrintsAndEncodesUserInvariantViolations() throws {
        let text = NotesInvariants.run(["run", "--strategy", "reference", "--seed", "1"])
        // reference does not claim noServerDelete: reported, marked, not a contract violation.
        #expect(text.status == 0)
        #expect(text.stdout.contains("[not claimed] t="))
        #expect(text.stdout.contains("invariants  the built-ins and noServerDelete (user)"))
        #expect(text.stdout.contains("  noServerDelete  entity "), "\(text.stdout)")
        let json = NotesInvariants.run(["run", "--strategy", "reference", "--seed", "1", "--json"])
        let j = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as! [String: Any]
        #expect(j["userInvariants"] as? [String] == ["noServerDelete"])
        let violations = j["violations"] as? [[String: Any]] ?? []
        #expect(!violations.isEmpty && violations.allSatisfy { ($0["invariant"] as? String) == "noServerDelete" })
        // A tool without user invariants prints neither.
        let plain = NotesInvariants.run(["run", "--strategy", "reference", "--seed", "1", "--json"], strategies: AnyStrategy.builtIns, invariants: [])
        #expect(plain.status == 0 && !plain.stdout.contains("userInvariants"))
    }

    @Test func badInvariantListsAreUsageErrorsBeforeAnythingRuns() throws {
        let twin = try CustomInvariant("noServerDelete", summary: "another rule under the same name") { _ in [] }
        let dup = NotesInvariants.run(["list"], invariants: [NotesInvariants.noServerDelete, twin])
        #expect(dup.status == 2)
        #expect(dup.stderr.contains("error: invalid user invariants given to SyncSimCLI: two user invariants are named 'noServerDelete'"), "\(dup.stderr)")
        #expect(dup.stdout.isEmpty)

        // An id that differs from a built-in's only in case shadows it for readers (and for
        // scenario file names on macOS).
        let shadow = try CustomInvariant("NoGhostDeletion", summary: "looks like the built-in") { _ in [] }
        let s = NotesInvariants.run(["fuzz", "--seeds", "0..2"], invariants: [shadow])
        #expect(s.status == 2)
        #expect(s.stderr.contains("user invariant 'NoGhostDeletion' differs from the built-in invariant 'noGhostDeletion' only in case"), "\(s.stderr)")
        let pair = try CustomInvariant("noserverdelete", summary: "the same name, other case") { _ in [] }
        let p = NotesInvariants.run(["list"], invariants: [NotesInvariants.noServerDelete, pair])
        #expect(p.status == 2 && p.stderr.contains("differs from user invariant"), "\(p.stderr)")

        // A claim with no oracle would always look met: refused, with a suggestion.
        let unjudged = NotesInvariants.run(["list"], invariants: [])
        #expect(unjudged.status == 2)
        #expect(unjudged.stderr.contains("strategy 'notesStrict' claims invariant 'noServerDelete'"), "\(unjudged.stderr)")

        // A strategy already judged by a different invariant of the same id.
        let carried = NotesInvariants.strict.judged(by: [twin])
        let c = NotesInvariants.run(["list"], strategies: [carried])
        #expect(c.status == 2 && c.stderr.contains("strategy 'notesStrict' is already judged by a user invariant named 'noServerDelete'"), "\(c.stderr)")
        // … while one judged by the same invariant is fine, and one the tool was not given is kept.
        let same = NotesInvariants.run(["list", "invariants"], strategies: [NotesInvariants.strict.judged(by: [NotesInvariants.noServerDelete])])
        #expect(same.status == 0, "\(same.stderr)")
        let kept = NotesInvariants.run(["list", "invariants"], strategies: [NotesInvariants.strict.judged(by: [NotesInvariants.noServerDelete])], invariants: [])
        #expect(kept.status == 0 && kept.stdout.contains("noServerDelete"), "\(kept.stderr)")
    }

    /// Shards of a fuzz run with a user invariant merge into the unsharded report.
    @Test func shardsWithUserInvariantsMergeIntoTheWhole() throws {
        let whole = Self.tmp("whole"), a = Self.tmp("shard1"), b = Self.tmp("shard2"), merged = Self.tmp("merged")
        let base = ["fuzz", "--strategy", "notesStrict", "--strategy", "reference", "--seeds", "0..4", "--quiet", "--jobs", "1"]
        for (dir, extra) in [(whole, [String]()), (a, ["--shard", "1/2"]), (b, ["--shard", "2/2"])] {
            let o = NotesInvariants.run(base + extra + ["--report-dir", dir])
            #expect(o.status == 1, "\(o.stderr)")
        }
        // Merging needs no invariant (nor the strategy): the shard reports carry their summaries.
        let m = NotesInvariants.run(["merge", a, b, "--report-dir", merged], strategies: AnyStrategy.builtIns, invariants: [])
        #expect(m.status == 1, "\(m.stderr)")
        func canonical(_ dir: String) throws -> NSDictionary {
            var j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as! [String: Any]
            j["timing"] = nil
            if var failures = j["failures"] as? [[String: Any]] {
                for i in failures.indices { failures[i]["replay"] = nil }
                j["failures"] = failures
            }
            return j as NSDictionary
        }
        #expect(try canonical(merged) == canonical(whole))
        let md = try String(contentsOfFile: "\(merged)/report.md", encoding: .utf8)
        #expect(md.contains("| `noServerDelete` | the server never applies a delete (notes are archived, not deleted) |"))
    }
}

import Foundation
import Testing
import SyncSimCLI

/// `notesSync` after its fix, as a user would ship it: the same name, other machines (here the
/// reference strategy's, which keep every invariant).
struct FixedNotesSync: SyncStrategy {
    var info: StrategyInfo {
        StrategyInfo(name: "notesSync", summary: "our notes app's sync engine, fixed", contract: [.convergence, .noResurrection], arbitration: .hybridLogicalClock)
    }
    var transport: Transport { ReferenceStrategy().transport }
    func makeClient(_ context: ClientContext, restoring durable: ReferenceStrategy.Client.Durable?) -> ReferenceStrategy.Client {
        ReferenceStrategy().makeClient(context, restoring: durable)
    }
    func makeServer(_ context: ServerContext) -> ReferenceStrategy.Server { ReferenceStrategy().makeServer(context) }
}

/// `fuzz` with a failure database and fresh seeds, through the command line.
@Suite struct FailureDatabaseCLITests {
    static func tmp(_ name: String) -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("notes-sim-faildb-\(getpid())-\(name)").path
        try? FileManager.default.removeItem(atPath: p)
        return p
    }

    /// Records seed 1's schedule as failing `invariant` under `strategy` (instant's machines
    /// resurrect a deleted entity there).
    static func record(_ strategy: AnyStrategy, _ invariant: InvariantID, in folder: String) throws {
        let sc = Scenario(title: "recorded", description: "", strategy: strategy.name, expect: [strategy.name: .fails(invariant)],
                          origin: .init(seed: 1), schedule: strategy.schedule(seed: 1))
        try AtomicFile.write(try sc.encoded(), to: "\(folder)/\(strategy.name)-\(invariant.rawValue)-seed1.json")
    }

    static let legacy = AnyStrategy(NotesSync(name: "notesLegacy", claims: []))

    @Test func knownFailuresAreReportedFixedStillFailingOrNew() throws {
        let db = Self.tmp("db")
        try Self.record(NotesTool.liar, .noResurrection, in: db)      // notesSync before its fix
        try Self.record(Self.legacy, .noResurrection, in: db)
        let fixedTool = AnyStrategy.builtIns + [AnyStrategy(FixedNotesSync()), Self.legacy]
        let o = NotesTool.run(["fuzz", "--strategy", "notesSync", "--strategy", "notesLegacy", "--seeds", "1..<4", "--no-shrink", "--quiet",
                               "--failures", db, "--report-dir", Self.tmp("r1")], strategies: fixedTool)
        #expect(o.status == 0, "\(o.stdout)\(o.stderr)")
        #expect(o.stdout.contains("known failures (\(db)): 1 still failing, 1 fixed;"), "\(o.stdout)")
        #expect(o.stdout.contains("notesSync · noResurrection · \(db)/notesSync-noResurrection-seed1.json: FIXED"), "\(o.stdout)")
        #expect(o.stdout.contains("notesLegacy · noResurrection · \(db)/notesLegacy-noResurrection-seed1.json: still failing"), "\(o.stdout)")
        // Seed 3 breaks more than the database records; the known one is not new.
        #expect(o.stdout.contains("  new: notesLegacy · "), "\(o.stdout)")
        #expect(!o.stdout.contains("new: notesLegacy · noResurrection"), "\(o.stdout)")

        // Before the fix, the recorded claim fails the run even on seeds that miss it.
        let before = NotesTool.run(["fuzz", "--strategy", "notesSync", "--seeds", "0..<1", "--no-shrink", "--quiet",
                                    "--failures", db, "--report-dir", Self.tmp("r2")], strategies: NotesTool.strategies + [Self.legacy])
        #expect(before.status == 1, "\(before.stdout)\(before.stderr)")
        #expect(before.stdout.contains("still failing (CONTRACT)"), "\(before.stdout)")
        #expect(before.stdout.contains("notesSync       met its contract"), "\(before.stdout)")
    }

    @Test func databaseOptionsAreCheckedBeforeAnythingRuns() throws {
        let missing = NotesTool.run(["fuzz", "--failures", Self.tmp("nowhere"), "--seeds", "0..<1", "--quiet"])
        #expect(missing.status == 2 && missing.stderr.contains("no such folder"), "\(missing.stderr)")
        let both = NotesTool.run(["fuzz", "--failures", "x", "--no-failures"])
        #expect(both.status == 2 && both.stderr.contains("not both"), "\(both.stderr)")
        let bad = Self.tmp("bad")
        try AtomicFile.write("{\"format\": 1, \"title\": \"t\", \"strategy\": \"notesSync\", \"expect\": {\"notesSnyc\": \"holds\"}, \"actions\": []}", to: "\(bad)/a.json")
        let typo = NotesTool.run(["fuzz", "--failures", bad, "--seeds", "0..<1", "--quiet"])
        #expect(typo.status == 2 && typo.stderr.contains("a.json:1:") && typo.stderr.contains("notesSnyc"), "\(typo.stderr)")
        // A FIFO named like a scenario would block a read forever: refused before it is opened.
        let fifo = Self.tmp("fifo")
        try FileManager.default.createDirectory(atPath: fifo, withIntermediateDirectories: true)
        #expect(mkfifo("\(fifo)/x.json", 0o644) == 0)
        let blocked = NotesTool.run(["fuzz", "--failures", fifo, "--seeds", "0..<1", "--quiet"])
        #expect(blocked.status == 2 && blocked.stderr.contains("not a regular file"), "\(blocked.stderr)")
    }

    /// The seeds line of a `--seeds random` run, e.g. `seeds 123..<125 (random start); …`.
    static func printedRange(_ stdout: String) -> String? {
        guard let line = stdout.split(separator: "\n").first(where: { $0.hasPrefix("seeds ") }) else { return nil }
        return line.split(separator: " ").dropFirst().first.map(String.init)
    }

    /// report.json without its wall-clock facts.
    static func canonicalReport(_ dir: String) throws -> NSDictionary {
        var r = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as? [String: Any] ?? [:]
        r["timing"] = nil
        return r as NSDictionary
    }

    @Test func randomSeedsArePrintedAndReplayIdentically() throws {
        let a = Self.tmp("random-a"), b = Self.tmp("random-b")
        let first = NotesTool.run(["fuzz", "--strategy", "instant", "--seeds", "random", "--count", "2", "--no-shrink", "--quiet", "--no-failures", "--report-dir", a])
        #expect(first.status == 0, "\(first.stderr)")
        let range = try #require(Self.printedRange(first.stdout), "\(first.stdout)")
        #expect(first.stdout.contains("rerun exactly with --seeds \(range)"))
        let again = NotesTool.run(["fuzz", "--strategy", "instant", "--seeds", range, "--no-shrink", "--quiet", "--no-failures", "--report-dir", b])
        #expect(again.status == 0)
        let ra = try Self.canonicalReport(a), rb = try Self.canonicalReport(b)
        #expect((ra["runs"] as? [Any])?.count == 2)
        #expect(ra == rb)
    }

    @Test func ciSetsTheStartSeedInTheEnvironment() throws {
        let dir = Self.tmp("env")
        let o = try CLI.run(["fuzz", "--strategy", "reference", "--count", "2", "--no-shrink", "--quiet", "--no-failures", "--report-dir", dir],
                            environment: ["SYNCSIM_SEED_START": "5000"])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.contains("seeds 5000..<5002 (start from SYNCSIM_SEED_START); rerun exactly with --seeds 5000..<5002"), "\(o.stdout)")
        let bad = try CLI.run(["fuzz", "--count", "2", "--quiet"], environment: ["SYNCSIM_SEED_START": "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("SYNCSIM_SEED_START='soon' is not a seed"), "\(bad.stderr)")
    }
}

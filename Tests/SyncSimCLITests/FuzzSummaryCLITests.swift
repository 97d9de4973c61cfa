import Foundation
import Testing
import SyncSimCLI

/// The first run explains itself: a legend for the two kinds of violation, the replay command of
/// each contract violation on standard output, and what coverage never reached.
@Suite struct FuzzSummaryCLITests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("notes-sim-summary-\(getpid())-\(name)").path
    }

    @Test func summarySaysWhatViolationsMeanAndHowToReproduceContractViolations() throws {
        // notesSync claims noResurrection and breaks it at seed 1; fullEntity breaks invariants it
        // does not claim.
        let o = NotesTool.run(["fuzz", "--strategy", "notesSync", "--strategy", "fullEntity", "--seeds", "0..<2", "--no-shrink",
                               "--quiet", "--no-failures", "--report-dir", Self.tmp("a")])
        #expect(o.status == 1)
        let lines = o.stdout.split(separator: "\n").map(String.init)
        let notes = try #require(lines.first { $0.hasPrefix("  notesSync ") }, "\(o.stdout)")
        #expect(notes.contains("CONTRACT VIOLATED: noResurrection") && notes.contains("[claimed and violated: noResurrection "), "\(notes)")
        let full = try #require(lines.first { $0.hasPrefix("  fullEntity ") })
        #expect(full.contains("met its contract") && full.contains("[not claimed, expected: "), "\(full)")
        #expect(o.stdout.contains("legend: 'invariant N' = N runs violated it. claimed and violated = the strategy promises it"))
        // The replay command of the contract violation, on stdout, after a header naming it.
        let header = try #require(lines.firstIndex { $0.hasPrefix("contract violations — reproduce each") }, "\(o.stdout)")
        #expect(lines[header + 1] == "  notesSync · noResurrection · seed 1")
        #expect(lines[header + 2] == "    swift run notes-sim run --strategy notesSync --seed 1")
        // fullEntity's unclaimed failures are not listed as contract violations.
        #expect(!lines.contains { $0.hasPrefix("  fullEntity · ") })
        // Coverage: two seeds cannot reach everything, and the summary says what was missed.
        let never = try #require(lines.first { $0.hasPrefix("never reached: ") }, "\(o.stdout)")
        #expect(never.contains("situation: "))
        // Kinds the default generator does not draw (scenario-only) are not a coverage gap.
        #expect(!never.contains("action: syncNow") && !never.contains("action: dropOldest"), "\(never)")
        #expect(!ActionKind.syncNow.isDrawnByDefault && ActionKind.update.isDrawnByDefault)
        // --quiet: no progress lines on stderr (only the debug-build note, if any).
        #expect(!o.stderr.contains("runs 1/"), "\(o.stderr)")
    }

    @Test func aGreenRunHasNoLegendAndNoReplayList() throws {
        let o = NotesTool.run(["fuzz", "--strategy", "reference", "--seeds", "0..<1", "--no-shrink", "--quiet", "--no-failures",
                               "--report-dir", Self.tmp("b")])
        #expect(o.status == 0)
        #expect(!o.stdout.contains("legend:") && !o.stdout.contains("contract violations —"))
        #expect(o.stdout.contains("never reached: ") || o.stdout.contains("coverage: every action kind"))
    }
}

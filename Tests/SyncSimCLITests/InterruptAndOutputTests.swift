import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing

/// Outputs under hostile conditions, on the real executable: Ctrl-C mid-run leaves a complete,
/// valid report marked interrupted; a budget ends a run of a hundred thousand actions on time;
/// a report folder that cannot hold a report is refused before anything runs.
@Suite(.serialized) struct InterruptAndOutputTests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-out-\(getpid())-\(name)").path
    }

    static func json(_ path: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any])
    }

    @Test func sigintWritesACompleteReportMarkedInterrupted() throws {
        let dir = Self.tmp("sigint")
        try? FileManager.default.removeItem(atPath: dir)
        let p = Process()
        p.executableURL = CLI.executable
        // The budget is only a safety net: the report must say interrupted, not timeBudget.
        p.arguments = ["fuzz", "--seeds", "0..1000000", "--jobs", "2", "--time-budget", "60s", "--quiet", "--report-dir", dir]
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        let start = Date()
        try p.run()
        // Let some runs finish first (the report must hold them).
        Thread.sleep(forTimeInterval: 2)
        p.interrupt()   // SIGINT
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        let took = Date().timeIntervalSince(start)
        let stdout = String(decoding: o, as: UTF8.self), stderr = String(decoding: e, as: UTF8.self)
        #expect(p.terminationReason == .exit && p.terminationStatus == 130, "\(stdout)\(stderr)")
        #expect(took < 20, "took \(took) s to stop after SIGINT")
        #expect(stderr.contains("interrupted by SIGINT"))
        #expect(stdout.contains("INCOMPLETE: interrupted"))

        let j = try Self.json("\(dir)/report.json")
        #expect(j["complete"] as? Bool == false)
        #expect(j["stopReason"] as? String == "interrupted")
        let runs = j["runs"] as? [[String: Any]] ?? []
        #expect(!runs.isEmpty, "no finished run in the report")
        #expect((j["seedsRun"] as? Int ?? 0) > 0)
        // Every failure is accounted for: shrunk, or marked as left unshrunk.
        for f in j["failures"] as? [[String: Any]] ?? [] {
            #expect(f["shrunkActions"] != nil || f["shrinkStopped"] as? Bool == true, "\(f)")
        }
        let xml = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        let parser = XMLParser(data: Data(xml.utf8))
        let shape = ShapeChecker()
        parser.delegate = shape
        #expect(parser.parse(), "junit.xml is not well-formed")
        #expect(shape.badNesting == 0 && shape.testcases > 0)
        let md = try String(contentsOfFile: "\(dir)/report.md", encoding: .utf8)
        #expect(md.contains("**incomplete**: interrupted"))
        let html = try String(contentsOfFile: "\(dir)/report.html", encoding: .utf8)
        #expect(html.contains("incomplete: interrupted") && html.hasSuffix("</html>\n"))
        // No temporary file left behind.
        let left = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasPrefix(".") }
        #expect(left.isEmpty, "\(left)")
    }

    /// `--actions 100000`: a single run takes far longer than the budget, so the budget must
    /// reach inside runs (and the unfinished runs must not be reported as passed).
    @Test func budgetStopsLongRunsAndReportsThemUnfinished() throws {
        let dir = Self.tmp("long")
        let start = Date()
        let o = try CLI.run(["fuzz", "--seeds", "0..1000000", "--actions", "20000", "--time-budget", "1s", "--quiet", "--report-dir", dir])
        let took = Date().timeIntervalSince(start)
        #expect(o.status == 0 || o.status == 1, "\(o.stderr)")
        // Generous for a debug build on a busy machine: before, this took minutes.
        #expect(took < 15, "took \(took) s for a 1 s budget")
        let j = try Self.json("\(dir)/report.json")
        #expect(j["complete"] as? Bool == false && j["stopReason"] as? String == "timeBudget")
        #expect(o.stdout.contains("INCOMPLETE: the time budget ran out"))
    }

    @Test func aReportFolderThatCannotHoldAReportIsRefusedBeforeAnythingRuns() throws {
        let file = Self.tmp("a-file")
        FileManager.default.createFile(atPath: file, contents: Data("x".utf8))
        let cases: [([String], String)] = [
            (["--report-dir", ""], "--report-dir is empty"),
            (["--report-dir="], "--report-dir is empty"),
            (["--report-dir", file], "is a file, not a folder"),
            (["--report-dir", "\(file)/below"], "is a file, not a folder"),
        ]
        for (extra, message) in cases {
            let start = Date()
            let o = try CLI.run(["fuzz", "--seeds", "0..100000", "--quiet"] + extra)
            #expect(o.status == 2, "\(extra): \(o.stderr)")
            #expect(o.stderr.hasPrefix("error: ") && o.stderr.contains(message), "\(extra): \(o.stderr)")
            #expect(!o.stderr.contains("Error Domain") && !o.stderr.contains("NSCocoaErrorDomain"), "\(o.stderr)")
            #expect(Date().timeIntervalSince(start) < 5, "\(extra): a simulation ran before the folder was checked")
        }
    }

    /// `shrink` takes a budget: a sweep reports the seeds it finished as incomplete, one seed's
    /// shrink says when the budget ran out before anything could be written.
    @Test func shrinkTakesABudget() {
        let t0 = Date()
        let sweep = NotesTool.run(["shrink", "--strategy", "fullEntity", "--seeds", "0..1000000", "--time-budget", "1s"])
        #expect(Date().timeIntervalSince(t0) < 15)
        #expect(sweep.status == 0 || sweep.status == 1, "\(sweep.stderr)")
        #expect(sweep.stdout.hasPrefix("INCOMPLETE (the time budget ran out): "), "\(sweep.stdout)")
        let t1 = Date()
        let one = NotesTool.run(["shrink", "--strategy", "fullEntity", "--seed", "0", "--actions", "20000", "--time-budget", "200ms",
                                 "--out", Self.tmp("never.json")])
        #expect(Date().timeIntervalSince(t1) < 15)
        #expect(one.status == 1 && one.stderr.contains("the time budget ran out before seed 0's run finished: nothing shrunk, nothing written"), "\(one.stderr)")
        #expect(!FileManager.default.fileExists(atPath: Self.tmp("never.json")))
    }

    /// One-character relative folder names trapped inside Foundation's path functions on Linux
    /// (found by the argument fuzzer): they are ordinary folders now.
    @Test func oneCharacterRelativeFoldersAreOrdinary() throws {
        let cwd = URL(fileURLWithPath: Self.tmp("cwd"))
        try FileManager.default.createDirectory(at: cwd, withIntermediateDirectories: true)
        for name in ["-", "=", "é", " "] {
            let o = try CLI.run(["fuzz", "--strategy", "reference", "--seeds", "0..1", "--actions", "3", "--quiet", "--report-dir", name], cwd: cwd)
            #expect(o.status == 0, "'\(name)': \(o.stderr)")
            #expect(FileManager.default.fileExists(atPath: cwd.appendingPathComponent(name).appendingPathComponent("report.json").path), "'\(name)'")
        }
    }

    /// `merge` never reads or writes outside the folders it is given.
    @Test func mergeStaysInsideItsFolders() throws {
        let shard = Self.tmp("merge-shard"), outside = Self.tmp("merge-outside")
        try? FileManager.default.removeItem(atPath: shard)
        let f = try CLI.run(["fuzz", "--strategy", "fullEntity", "--seeds", "0..3", "--actions", "30", "--quiet", "--report-dir", shard])
        #expect(f.status == 0, "\(f.stderr)")
        // The output may not be an input: it would overwrite that shard's report.
        let same = try CLI.run(["merge", shard, "--report-dir", shard])
        #expect(same.status == 2 && same.stderr.contains("is the input folder"), "\(same.stderr)")
        // A scenario file that is a link to somewhere else is not followed.
        let j = try Self.json("\(shard)/report.json")
        let scenario = try #require((j["failures"] as? [[String: Any]])?.compactMap { $0["scenario"] as? String }.first)
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: "\(shard)/\(scenario)", toPath: "\(outside)/secret.json")
        try FileManager.default.createSymbolicLink(atPath: "\(shard)/\(scenario)", withDestinationPath: "\(outside)/secret.json")
        let linked = try CLI.run(["merge", shard, "--report-dir", Self.tmp("merge-out")])
        #expect(linked.status == 2 && linked.stderr.contains("a symbolic link"), "\(linked.stderr)")
        // Nor is a report.json that links elsewhere.
        let linkedDir = Self.tmp("merge-linked")
        try? FileManager.default.removeItem(atPath: linkedDir)
        try FileManager.default.createDirectory(atPath: linkedDir, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: "\(linkedDir)/report.json", withDestinationPath: "\(shard)/report.json")
        let l2 = try CLI.run(["merge", linkedDir, "--report-dir", Self.tmp("merge-out3")])
        #expect(l2.status == 2 && l2.stderr.contains("report.json is a symbolic link"), "\(l2.stderr)")
        // A report.json that is not a report: a sentence with the JSON path, no Foundation dump.
        let bad = Self.tmp("merge-bad")
        try FileManager.default.createDirectory(atPath: bad, withIntermediateDirectories: true)
        try Data(#"{"format": 1, "tool": "syncsim", "options": 7}"#.utf8).write(to: URL(fileURLWithPath: "\(bad)/report.json"))
        let b = try CLI.run(["merge", bad, "--report-dir", Self.tmp("merge-out2")])
        #expect(b.status == 2 && b.stderr.contains("report.json: not a syncsim fuzz report: at options: expected"), "\(b.stderr)")
        #expect(!b.stderr.contains("Swift.DecodingError") && !b.stderr.contains("codingPath"))
    }
}

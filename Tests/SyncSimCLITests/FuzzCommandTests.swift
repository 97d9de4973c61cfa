import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import Testing
import SyncSim

/// Whole fuzz runs: deterministic across --jobs and shards, bounded by --time-budget, and
/// producing all four report files.
@Suite(.serialized) struct FuzzCommandTests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-fuzz-\(getpid())-\(name)").path
    }

    /// report.json without its timing section.
    static func reportSansTiming(_ dir: String) throws -> NSDictionary {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))
        let j = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var d = j
        d["timing"] = nil
        // Replay commands name the report folder; compare them without it.
        if var failures = d["failures"] as? [[String: Any]] {
            for i in failures.indices { failures[i]["replay"] = nil }
            d["failures"] = failures
        }
        return d as NSDictionary
    }

    static let base = ["fuzz", "--strategy", "fullEntity", "--strategy", "instant", "--seeds", "0..12", "--quiet"]

    @Test func sameOptionsSameReportWithOneOrTwoJobsAndShardsMergeToTheWhole() throws {
        let one = Self.tmp("j1"), two = Self.tmp("j2"), s1 = Self.tmp("s1"), s2 = Self.tmp("s2"), merged = Self.tmp("m")
        for (dir, extra) in [(one, ["--jobs", "1"]), (two, ["--jobs", "2"]), (s1, ["--shard", "1/2"]), (s2, ["--shard", "2/2"])] {
            let o = try CLI.run(Self.base + extra + ["--report-dir", dir])
            #expect(o.status == 0, "\(extra): \(o.stderr)")
            for f in ["report.md", "report.json", "report.html", "junit.xml"] {
                #expect(FileManager.default.fileExists(atPath: "\(dir)/\(f)"), "\(dir)/\(f) missing")
            }
        }
        #expect(try Self.reportSansTiming(one) == Self.reportSansTiming(two))
        let m = try CLI.run(["merge", s1, s2, "--report-dir", merged])
        #expect(m.status == 0, "\(m.stderr)")
        #expect(try Self.reportSansTiming(merged) == Self.reportSansTiming(one))
    }

    @Test func timeBudgetStopsCleanlyWithAValidReport() throws {
        let dir = Self.tmp("budget")
        let start = Date()
        let o = try CLI.run(["fuzz", "--seeds", "0..100000", "--time-budget", "2s", "--quiet", "--report-dir", dir])
        let took = Date().timeIntervalSince(start)
        #expect(o.status == 0 || o.status == 1, "\(o.stderr)")
        #expect(took < 6, "took \(took) s for a 2 s budget")
        let j = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: "\(dir)/report.json"))) as! [String: Any]
        #expect(j["complete"] as? Bool == false)
        #expect((j["seedsRun"] as? Int ?? 0) > 0)
    }

    @Test func junitHasTheCommonSchemaShape() throws {
        let dir = Self.tmp("junit")
        _ = try CLI.run(Self.base + ["--no-shrink", "--report-dir", dir])
        let xml = try String(contentsOfFile: "\(dir)/junit.xml", encoding: .utf8)
        #expect(xml.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites "))
        // Well-formed, and testcases live in testsuites.
        let parser = XMLParser(data: Data(xml.utf8))
        let shape = ShapeChecker()
        parser.delegate = shape
        #expect(parser.parse(), "junit.xml is not well-formed")
        #expect(shape.testcases == 2 * InvariantID.builtIns.count)   // one per (strategy, built-in)
        #expect(shape.badNesting == 0)
    }

    @Test func badOptionsAreExit2() throws {
        for args in [["fuzz", "--seeds", "9..3"], ["fuzz", "--shard", "3/2"], ["fuzz", "--time-budget", "soon"], ["fuzz", "--strategy", "nope"],
                     ["fuzz", "--seeds", "0..5", "--count", "3"],
                     ["fuzz", "--start", "18446744073709551600", "--count", "100"],
                     ["fuzz", "--start", "18446744073709551615"],
                     ["fuzz", "--seeds", "0..18446744073709551615"],
                     ["fuzz", "--seeds", "0..99999999999999999999"],
                     ["fuzz", "--shard", "1/0"], ["fuzz", "--shard", "1/2/3"], ["fuzz", "--shard", "-1/2"],
                     ["fuzz", "--jobs", "0"], ["fuzz", "--time-budget", "nan"], ["fuzz", "--time-budget", "-5s"],
                     ["shrink", "--strategy", "instant", "--seeds", "0..18446744073709551615"]] {
            let o = try CLI.run(args)
            #expect(o.status == 2, "\(args): \(o.stderr)")
            #expect(o.stderr.hasPrefix("error: "), "\(args): \(o.stderr)")
            #expect(!o.stderr.contains("Fatal error"), "\(args): \(o.stderr)")
        }
        let o = try CLI.run(["fuzz", "--start", "18446744073709551600", "--count", "100"])
        #expect(o.stderr.contains("--start") && o.stderr.contains("--count") && o.stderr.contains("at most 15 seeds"))
    }
}

final class ShapeChecker: NSObject, XMLParserDelegate {
    var stack: [String] = []
    var testcases = 0
    var badNesting = 0
    func parser(_ parser: XMLParser, didStartElement e: String, namespaceURI: String?, qualifiedName: String?, attributes: [String: String] = [:]) {
        let parent = stack.last
        switch e {
        case "testsuites": if parent != nil { badNesting += 1 }
        case "testsuite": if parent != "testsuites" { badNesting += 1 }
        case "testcase":
            testcases += 1
            if parent != "testsuite" || attributes["name"] == nil || attributes["classname"] == nil { badNesting += 1 }
        case "failure", "skipped": if parent != "testcase" { badNesting += 1 }
        default: badNesting += 1
        }
        stack.append(e)
    }
    func parser(_ parser: XMLParser, didEndElement e: String, namespaceURI: String?, qualifiedName: String?) { stack.removeLast() }
}

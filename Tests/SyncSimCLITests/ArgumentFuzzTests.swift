import Foundation
import Testing
import SyncSimCLI

/// The CLI argument fuzzer (`ArgumentFuzzer`): hostile command lines run in-process never
/// crash or hang, exit 0, 1 or 2, and every rejection is an `error:` sentence naming the option
/// or value and pointing at the help.
///
/// Small in `swift test`; full size by environment variable:
///
///     SYNCSIM_ARGFUZZ_CASES=5000 swift test --filter ArgumentFuzzTests
///
/// which prints the figures (cases, exit statuses, slowest case) it closes with.
@Suite struct ArgumentFuzzTests {
    static func fuzzer() throws -> ArgumentFuzzer {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-argfuzz-\(getpid())").path
        let fm = FileManager.default
        try fm.createDirectory(atPath: "\(root)/scenarios", withIntermediateDirectories: true)
        let plain = "\(root)/plain.txt"
        fm.createFile(atPath: plain, contents: Data("not json\n".utf8))
        // A real scenario and a real report folder, so valid paths reach the commands.
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let library = here.appendingPathComponent("Scenarios").path
        let source = try #require(fm.enumerator(atPath: library)?.allObjects.compactMap { $0 as? String }.filter { $0.hasSuffix(".json") }.sorted().first)
        let scenario = "\(root)/scenarios/one.json"
        // The suite's tests set up in parallel: another may have copied it a moment ago.
        if !fm.fileExists(atPath: scenario) { try? fm.copyItem(atPath: "\(library)/\(source)", toPath: scenario) }
        #expect(fm.fileExists(atPath: scenario))
        let report = "\(root)/report"
        if !fm.fileExists(atPath: "\(report)/report.json") {
            let o = CapturedOutput()
            let status = SyncSimCLI.run(arguments: ["fuzz", "--strategy", "fullEntity", "--seeds", "0..2", "--actions", "10", "--quiet", "--report-dir", report],
                                        output: o.output)
            #expect(status == 0, "\(o.stderr)")
        }
        let history = "\(root)/history.jsonl"
        if !fm.fileExists(atPath: history) {
            let o = CapturedOutput()
            let status = SyncSimCLI.run(arguments: ["run", "--strategy", "instant", "--seed", "1", "--actions", "20", "--history", history],
                                        output: o.output)
            #expect(status == 0 || status == 1, "\(o.stderr)")
        }
        return ArgumentFuzzer(seed: 0x5EED, scratch: "\(root)/scratch", scenario: scenario, scenarioFolder: "\(root)/scenarios",
                              reportFolder: report, plainFile: plain, history: history)
    }

    @Test func theGeneratorIsDeterministicAndVaried() throws {
        let f = try Self.fuzzer()
        let a = (0..<300).map(f.vector), b = (0..<300).map(f.vector)
        #expect(a == b)
        #expect(Set(a).count > 200)
        #expect(Set(a.compactMap(\.first)).isSuperset(of: ["fuzz", "run", "replay", "shrink", "merge", "list", "bench", "check", "help"]))
    }

    /// The checker itself must be able to fail: these outcomes are defects.
    @Test func theCheckerRejectsBadOutcomes() {
        #expect(ArgumentFuzzRun.problem(status: 3, stderr: "") != nil)
        #expect(ArgumentFuzzRun.problem(status: 2, stderr: "something went wrong\n") != nil)
        #expect(ArgumentFuzzRun.problem(status: 2, stderr: "error: it failed\n") != nil)
        #expect(ArgumentFuzzRun.problem(status: 2, stderr: "error: x: Error Domain=NSCocoaErrorDomain Code=4\n") != nil)
        #expect(ArgumentFuzzRun.problem(status: 2, stderr: "error: '--seed' got '\u{0}'\n") != nil)
        #expect(ArgumentFuzzRun.problem(status: 0, stderr: "error: --x\n") != nil)
        #expect(ArgumentFuzzRun.problem(status: 2, stderr: "error: unknown option '--x' for 'run'\nSee 'syncsim run --help'.\n") == nil)
    }

    @Test func hostileCommandLinesAreRejectedCleanly() throws {
        let f = try Self.fuzzer()
        let n = ProcessInfo.processInfo.environment["SYNCSIM_ARGFUZZ_CASES"].flatMap { Int($0) } ?? 150
        let t0 = Date()
        let s = ArgumentFuzzRun.run(f, cases: 0..<max(1, n))
        let statuses = s.byStatus.keys.sorted().map { "exit \($0): \(s.byStatus[$0]!)" }.joined(separator: ", ")
        print("argument fuzzer: \(s.cases) cases in \(String(format: "%.1f", Date().timeIntervalSince(t0))) s; \(statuses); slowest case \(s.slowest.index) \(String(format: "%.2f", s.slowest.seconds)) s; \(s.findings.count) findings")
        print("argument fuzzer, accepted/cases per command: " + s.byCommand.keys.sorted().map { "\($0) \(s.byCommand[$0]!.accepted)/\(s.byCommand[$0]!.cases)" }.joined(separator: ", "))
        for finding in s.findings.prefix(20) { Issue.record("\(finding)") }
        // Both outcomes occur: the fuzzer reaches accepted commands, not only typos.
        #expect((s.byStatus[2] ?? 0) > 0 && (s.byStatus[0] ?? 0) + (s.byStatus[1] ?? 0) > 0, "\(statuses)")
        #expect(s.slowest.seconds < 60, "case \(s.slowest.index) took \(s.slowest.seconds) s")
    }
}

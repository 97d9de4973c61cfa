import Foundation
import Testing
import SyncSim

/// The scenario-file fuzzer: every file in `Scenarios/` mutated (`ScenarioMutator`), each mutant
/// decoded, compiled and, if accepted, round-tripped and replayed. A failure is a crash (the
/// process dies: the mutant is in the file named at the start), a hang (a mutant taking more
/// than 10 s), a file accepted although it does not compile or does not round-trip, or a
/// rejection that names neither a JSON path nor a line:column, or that prints a raw control
/// character.
///
/// `swift test` runs a few hundred mutants. The full size (the issue asks for 100,000):
///
///     SYNCSIM_MUTANTS=100000 swift test --filter ScenarioMutationFuzz
///
/// or `.ci/fuzz-scenario-files [COUNT] [SEED]`; `SYNCSIM_MUTANT_SEED` picks another set, and
/// `SYNCSIM_MUTANT_FILE` where the current mutant is written before it is tried.
@Suite struct ScenarioMutationFuzzTests {
    static let environment = ProcessInfo.processInfo.environment
    static let count = Int(environment["SYNCSIM_MUTANTS"] ?? "") ?? 250
    static let seed = UInt64(environment["SYNCSIM_MUTANT_SEED"] ?? "") ?? 1
    static let currentFile = environment["SYNCSIM_MUTANT_FILE"]
        ?? FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-current-mutant-\(getpid()).json").path
    static let hangLimit: Double = 10

    static func corpus() -> [(name: String, bytes: [UInt8])] {
        ScenarioLibraryTests.files.compactMap { f in
            FileManager.default.contents(atPath: ScenarioLibraryTests.root.appendingPathComponent(f).path).map { (f, [UInt8]($0)) }
        }
    }

    /// What is wrong with a rejection, if anything.
    static func problems(with e: ScenarioError, file: String) -> [String] {
        var out: [String] = []
        let text = e.description
        if e.location == nil && e.path.isEmpty { out.append("rejected without a location: \(text)") }
        if !text.hasPrefix(file) { out.append("the message does not start with the file name: \(text)") }
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            out.append("the message holds a raw control character: \(text.debugDescription)")
        }
        if text.count > 3_000 { out.append("a message of \(text.count) characters") }
        return out
    }

    enum Verdict { case rejected, accepted }

    /// Decodes, compiles, round-trips and replays one mutant; returns what went wrong.
    static func judge(_ bytes: [UInt8], file: String, index: Int) -> (Verdict, [String]) {
        let names = AnyStrategy.builtIns.map(\.name)
        let sc: Scenario
        do {
            sc = try Scenario.decode(Data(bytes), file: file, strategies: names)
        } catch let e as ScenarioError {
            return (.rejected, problems(with: e, file: file))
        } catch {
            return (.rejected, ["rejected with something other than a ScenarioError: \(error)"])
        }
        var out: [String] = []
        do { _ = try sc.schedule.compile() } catch { out.append("accepted but does not compile: \(error)") }
        do {
            let text = try sc.encoded()
            let back = try Scenario.decode(Data(text.utf8), file: "round-trip.json", strategies: names)
            if back.schedule != sc.schedule { out.append("accepted but its canonical text decodes to another schedule") }
        } catch {
            out.append("accepted but its canonical text is rejected: \(error)")
        }
        let strategy = AnyStrategy.builtIns.first { $0.name == sc.strategy } ?? AnyStrategy.builtIns[index % AnyStrategy.builtIns.count]
        do {
            _ = try strategy.run(sc.schedule, seed: sc.seed)
        } catch {
            out.append("accepted but the run refused it: \(error)")
        }
        return (.accepted, out)
    }

    @Test func mutatedScenarioFilesNeverCrashHangOrLie() throws {
        let corpus = Self.corpus()
        try #require(corpus.count >= 15, "the Scenarios library was not found")
        let mutator = ScenarioMutator(corpus: corpus)
        print("scenario fuzzer: \(Self.count) mutants, seed \(Self.seed); the mutant being tried is in \(Self.currentFile) (if this process dies, that file is the culprit)")
        var accepted = 0, rejected = 0, hangs = 0
        var slowest: (Double, Int) = (0, -1)
        var failures: [String] = []
        let start = Date()
        for i in 0..<Self.count {
            let name = "mutant-\(Self.seed)-\(i).json"
            // Named before it is made, so a crash in the mutator names its mutant too.
            FileManager.default.createFile(atPath: Self.currentFile + ".txt", contents: Data("making \(name)\n".utf8))
            let m = mutator.mutant(seed: Self.seed, index: i)
            // Written before it is tried, so a crash leaves the culprit on disk.
            FileManager.default.createFile(atPath: Self.currentFile, contents: Data(m.bytes))
            FileManager.default.createFile(atPath: Self.currentFile + ".txt",
                                           contents: Data("\(name) from \(m.source): \(m.steps.joined(separator: "; "))\n".utf8))
            let t0 = Date()
            let (verdict, problems) = Self.judge(m.bytes, file: name, index: i)
            let dt = Date().timeIntervalSince(t0)
            if dt > slowest.0 { slowest = (dt, i) }
            if Self.environment["SYNCSIM_MUTANT_VERBOSE"] != nil {
                print(String(format: "%.3f", dt), verdict, name, m.source, m.steps.joined(separator: "; ").prefix(200))
            }
            if dt > Self.hangLimit { hangs += 1; failures.append("\(name) from \(m.source) [\(m.steps.joined(separator: "; "))]: took \(dt) s") }
            switch verdict {
            case .accepted: accepted += 1
            case .rejected: rejected += 1
            }
            for p in problems { failures.append("\(name) from \(m.source) [\(m.steps.joined(separator: "; "))]: \(p)") }
        }
        try? FileManager.default.removeItem(atPath: Self.currentFile)
        try? FileManager.default.removeItem(atPath: Self.currentFile + ".txt")
        let total = Date().timeIntervalSince(start)
        print("scenario fuzzer: \(Self.count) mutants in \(String(format: "%.1f", total)) s: \(accepted) accepted and replayed, \(rejected) rejected, 0 crashes, \(hangs) hangs (> \(Int(Self.hangLimit)) s), \(failures.count) failures; slowest mutant \(slowest.1): \(String(format: "%.2f", slowest.0)) s")
        for f in failures.prefix(20) { Issue.record(Comment(rawValue: f)) }
        #expect(failures.isEmpty)
        // The mutator must reach both sides, or the test proves nothing.
        #expect(accepted > 0 && rejected > 0, "accepted \(accepted), rejected \(rejected)")
    }

    @Test func mutantsAreDeterministic() {
        let mutator = ScenarioMutator(corpus: Self.corpus())
        for i in [0, 1, 17, 99] {
            #expect(mutator.mutant(seed: 5, index: i).bytes == mutator.mutant(seed: 5, index: i).bytes)
        }
        #expect(mutator.mutant(seed: 5, index: 3).bytes != mutator.mutant(seed: 6, index: 3).bytes)
    }

    /// The oracle flags what it must (so the fuzz test can fail).
    @Test func theOracleFlagsUnlocatedAndUnsafeRejections() {
        let file = "m.json"
        #expect(Self.problems(with: ScenarioError(file: file, path: "", message: "bad"), file: file).count == 1)
        #expect(Self.problems(with: ScenarioError(file: file, path: "actions[0]", message: "bad"), file: file).isEmpty)
        #expect(Self.problems(with: ScenarioError(file: file, path: "", message: "bad", location: JSONLocation(line: 1, column: 2)), file: file).isEmpty)
        // A NUL in a message is escaped by the error itself, so a judged message never holds one.
        let nul = ScenarioError(file: file, path: "title", message: "unknown 'a\u{0}b'")
        #expect(Self.problems(with: nul, file: file).isEmpty)
        #expect(nul.description.contains("a\\u{0}b"))
        // An accepted file is replayed: a good file passes every check.
        let good = Array(ScenarioErrorGood.text.utf8)
        let (v, p) = Self.judge(good, file: file, index: 0)
        #expect(v == .accepted && p.isEmpty, "\(p)")
    }
}

enum ScenarioErrorGood {
    static let text = """
    {"format": 1, "title": "t", "strategy": "instant", "expect": {"instant": "holds"},
     "options": {"clients": 2},
     "initial": [{"entity": 1, "namespace": "todos", "set": {"title": "a"}}],
     "actions": [
       {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "todos"}},
       {"at": 10, "do": "update", "client": "B", "entity": 1, "set": {"title": "b"}}
     ]}
    """
}

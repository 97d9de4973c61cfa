import Foundation
import SyncSim

/// One scenario file replayed under one strategy, against the file's expectation for it.
public struct ScenarioOutcome: Sendable, CustomStringConvertible {
    /// The file, relative to the folder that was replayed.
    public var file: String
    public var strategy: String
    /// What the file expects of this strategy (`holds`, or an invariant that must fail).
    public var expectation: Scenario.Expectation?
    /// The invariants the replay violated.
    public var violated: [InvariantID]
    /// Set when the file could not be read or run (then the outcome is a failure).
    public var error: String?
    /// The command that replays it as a story.
    public var replayCommand: String

    public var met: Bool {
        guard error == nil, let e = expectation else { return false }
        switch e {
        case .holds: return violated.isEmpty
        case .fails(let i): return violated.contains(i)
        }
    }

    public var description: String {
        if let error { return "\(file): \(error)" }
        let got = violated.isEmpty ? "no violation" : "violated \(violated.map(\.rawValue).joined(separator: ", "))"
        return "\(file) under \(strategy): expected \(expectation.map(\.description) ?? "nothing"), \(got)\nreplay: \(replayCommand)"
    }
}

extension SyncSimTest {
    /// Replays every `*.json` scenario file under `folder` (recursively, in path order) under each
    /// of `strategies` that the file has an expectation for, and compares. Scenario files may
    /// name the strategies' schemas instead of embedding them. A file that cannot be read or
    /// decoded is an outcome with an error (located: file and JSON path), never a crash.
    public static func replayScenarios(in folder: String, strategies: [AnyStrategy],
                                       commandPrefix: String = "swift run syncsim") -> [ScenarioOutcome] {
        let files = scenarioFiles(under: folder)
        var schemas: [Schema] = []
        for s in strategies where s.schema != .default && !schemas.contains(s.schema) { schemas.append(s.schema) }
        var out: [ScenarioOutcome] = []
        Schema.$known.withValue(schemas) {
            for rel in files {
                let path = folder + "/" + rel
                let replay = "\(commandPrefix) replay \(path)"
                let scenario: Scenario
                do {
                    scenario = try Scenario.load(path: path)
                } catch {
                    out.append(ScenarioOutcome(file: rel, strategy: "", expectation: nil, violated: [], error: "\(error)", replayCommand: replay))
                    continue
                }
                for s in strategies {
                    guard let e = scenario.expect[s.name] else { continue }
                    do {
                        let r = try s.run(scenario.schedule, seed: scenario.seed)
                        out.append(ScenarioOutcome(file: rel, strategy: s.name, expectation: e, violated: r.violatedInvariants,
                                                   error: nil, replayCommand: replay + " --strategy \(s.name)"))
                    } catch {
                        out.append(ScenarioOutcome(file: rel, strategy: s.name, expectation: e, violated: [], error: "\(error)",
                                                   replayCommand: replay + " --strategy \(s.name)"))
                    }
                }
            }
        }
        return out
    }

    /// Relative paths of the JSON files under `folder`, sorted (no file-system order reaches
    /// the result).
    static func scenarioFiles(under folder: String) -> [String] {
        guard let e = FileManager.default.enumerator(atPath: folder) else { return [] }
        var files: [String] = []
        while let p = e.nextObject() as? String { if p.hasSuffix(".json") { files.append(p) } }
        return files.sorted()
    }
}

import Foundation
import SyncSim

struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay scenario files exactly, as a story, and check their expectations"
    static let help = """
    USAGE: syncsim replay FILE... [--strategy NAME] [--quiet]

    Replays each scenario file exactly and prints the run as a numbered story
    (t=120ms  B goes offline …), then each violation, then whether the file's expectation for
    the strategy was met. Folders are searched for *.json files.

    OPTIONS:
      --strategy NAME   replay under another strategy than the file names (the quickest way to
                        compare strategies on one case)
      --quiet           no story: one line per file

    EXIT CODES: 0 every file's expectation met, 1 otherwise, 2 a file cannot be read (the
    message names the file, the JSON path and what was expected).

    EXAMPLES:
      syncsim replay Scenarios/found/sharedDiff-noGhostDeletion-seed0.json
      syncsim replay Scenarios/merge/offline-title-server-done.json --strategy fullEntity
      syncsim replay Scenarios --quiet
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let override = try args.strategy()
        let quiet = args.flag("--quiet")
        let paths = args.positionals()
        try args.finish()
        guard !paths.isEmpty else { throw UsageError("name at least one scenario file or folder") }
        let files = try ScenarioFiles.expand(paths)
        // Load every file first: a bad file is exit 2 before anything runs.
        var scenarios: [(String, Scenario)] = []
        for f in files {
            do {
                scenarios.append((f, try Scenario.load(path: f)))
            } catch let e as ScenarioError {
                printError("error: \(e)")
                return ExitCode.usage
            }
        }
        var allMet = true
        for (file, sc) in scenarios {
            let name = override?.info.name ?? sc.strategy
            guard let strategy = override ?? StrategyRegistry.named(sc.strategy) else {
                printError("error: \(file): strategy: unknown strategy '\(sc.strategy)'; valid values: \(StrategyRegistry.names.joined(separator: ", "))")
                return ExitCode.usage
            }
            let r = try simulate(strategy, sc.schedule, seed: sc.seed, trace: quiet ? .hashOnly : .full)
            let expectation = sc.expect[name]
            let met = expectation.map { $0.isMet(by: r.violations) }
            if met == false { allMet = false }
            if quiet {
                let verdict = met.map { $0 ? "ok  " : "FAIL" } ?? "n/a "
                print("\(verdict) \(file) [\(name)] expected \(expectation?.description ?? "nothing"), got \(r.violatedInvariants.map(\.rawValue).joined(separator: ", ").ifEmpty("no violation"))")
                continue
            }
            print("# \(sc.title)")
            if !sc.description.isEmpty { print("# \(sc.description)") }
            print("# \(file) — strategy \(name), seed \(sc.seed), \(sc.schedule.actions.count) actions, trace \(r.traceHashHex)")
            print("")
            for (i, l) in r.trace.enumerated() {
                print("\(String(i + 1).leftPad(4))  t=\(String(l.time))ms".padding(toLength: 20, withPad: " ", startingAt: 0) + "  " + l.text)
            }
            print("")
            if r.violations.isEmpty { print("no violation") }
            for v in r.violations { print("VIOLATION \(v)") }
            switch met {
            case true?: print("expectation met: \(expectation!) under \(name)")
            case false?: print("EXPECTATION NOT MET: expected \(expectation!) under \(name)")
            case nil: print("no expectation recorded for \(name)")
            }
            print("")
        }
        return allMet ? ExitCode.ok : ExitCode.violation
    }
}

enum ScenarioFiles {
    /// Files as given; folders expanded to their *.json files, recursively, in sorted order.
    static func expand(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        for p in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                throw UsageError("\(p): no such file or folder")
            }
            if isDir.boolValue {
                let items = (FileManager.default.enumerator(atPath: p)?.allObjects as? [String]) ?? []
                out += items.filter { $0.hasSuffix(".json") }.sorted().map { (p as NSString).appendingPathComponent($0) }
            } else {
                out.append(p)
            }
        }
        return out
    }
}

extension String {
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
}

import Foundation

struct ReplayCommand: Command {
    static let name = "replay"
    static let summary = "Replay scenario files exactly, as a story, and check their expectations"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) replay FILE... [--strategy NAME] [--quiet] [--explain [--json] [--explain-runs N]] [--history OUT.jsonl]

        Replays each scenario file exactly and prints the run as a numbered story
        (t=120ms  B goes offline …), then each violation, then whether the file's expectation for
        the strategy was met. Folders are searched for *.json files.

        OPTIONS:
          --strategy NAME   replay under another strategy than the file names (the quickest way to
                            compare strategies on one case)
          --quiet           no story: one line per file
          --explain         after the story, explain the failure by counterfactual replays: per
                            action (and initial entity, and fault option) whether it is necessary,
                            free (it can go; say which parameters may take any value) or timing
                            (it must happen within a window, found by moving it), and the point of
                            no return (the earliest prefix after which random continuations all
                            fail the same way); the file's expected invariant is explained, else
                            its first violation
          --json            with --explain: print only a JSON array, one {"file", "explanation"}
                            (or {"file", "error"}) per file
          --explain-runs N  the replay budget per file (default 2000; a shrunk story of ten actions
                            needs a few hundred, each as long as the file's run); Ctrl-C stops it
                            too, and the explanation then says which parts it did not judge
          --history OUT     also write the run as a history (JSON Lines; one scenario FILE) that
                            '\(tool) check OUT' judges with the same oracles

        EXIT CODES: 0 every file's expectation met, 1 otherwise, 2 a file cannot be read (the
        message names the file, the JSON path and what was expected).

        EXAMPLES:
          \(tool) replay Scenarios/found/sharedDiff-noGhostDeletion-seed0.json
          \(tool) replay Scenarios/merge/offline-title-server-done.json --strategy fullEntity
          \(tool) replay Scenarios --quiet
          \(tool) replay Scenarios/deletes/ghost-deletion-two-subscriptions.json --explain
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let override = try args.strategy(in: ctx)
        let quiet = args.flag("--quiet")
        let explain = args.flag("--explain")
        let json = args.flag("--json")
        let explainRuns = try args.int("--explain-runs", in: ExplainBudget.maxRunsRange)
        let historyPath = try args.value("--history")
        let paths = args.positionals()
        try args.finish()
        if json && !explain { throw UsageError("--json needs --explain (replay prints stories; --explain --json prints the explanations as JSON)") }
        if explainRuns != nil && !explain { throw UsageError("--explain-runs needs --explain") }
        guard !paths.isEmpty else { throw UsageError("'replay' needs at least one scenario FILE or folder, e.g. '\(ctx.commandName) replay Scenarios'") }
        for p in paths where !FileManager.default.fileExists(atPath: p) {
            throw UsageError("no scenario file or folder named '\(OptionValues.shown(p, limit: 200))'; name a scenario .json file or a folder of them")
        }
        let files = try ScenarioFiles.expand(paths)
        // Load every file first: a bad file is exit 2 before anything runs.
        var scenarios: [(String, Scenario)] = []
        for f in files {
            do {
                scenarios.append((f, try Scenario.load(path: f, strategies: ctx.strategies.names)))
            } catch let e as ScenarioError {
                ctx.printError("error: \(e)")
                return ExitCode.usage
            }
        }
        // Resolve every file's strategy first too: an unknown name is exit 2 before anything runs.
        var runs: [(file: String, scenario: Scenario, strategy: AnyStrategy)] = []
        for (file, sc) in scenarios {
            if let override {
                runs.append((file, sc, override))
                continue
            }
            do {
                runs.append((file, sc, try ctx.strategies.resolve(sc.strategy)))
            } catch let e as UnknownStrategyError {
                ctx.printError("error: \(file): strategy: \(e.message()) (or pass --strategy NAME)")
                return ExitCode.usage
            }
        }
        if historyPath != nil && runs.count != 1 {
            throw UsageError("--history writes one run's history; give one scenario FILE (got \(runs.count))")
        }
        if historyPath != nil && explain && json {
            throw UsageError("--history writes the story's run; it cannot be combined with --explain --json, which prints only JSON")
        }
        if explain && json {
            return try ExplainOutput.json(runs.map { ($0.file, $0.scenario, $0.strategy) }, maxRuns: explainRuns, ctx)
        }
        var allMet = true
        let explainSession = ExplainOutput.Session()
        for (file, sc, strategy) in runs {
            let name = strategy.name
            let r: RunResult
            if let historyPath {
                if (try? sc.schedule.compile().usesTenants) == true {
                    throw UsageError("--history cannot record tenants yet (the history format has no tenant lines): \(file) switches tenant or logs out")
                }
                var lines: [String] = []
                r = try strategy.run(sc.schedule, seed: sc.seed, trace: quiet ? .hashOnly : .full, history: { lines.append($0) })
                try AtomicFile.write(lines.joined(separator: "\n") + "\n", to: historyPath)
            } else {
                r = try strategy.run(sc.schedule, seed: sc.seed, trace: quiet ? .hashOnly : .full)
            }
            let expectation = sc.expect[name]
            let met = expectation.map { $0.isMet(by: r.violations) }
            if met == false { allMet = false }
            defer { if explain { ExplainOutput.text(file, sc, strategy, maxRuns: explainRuns, explainSession, ctx) } }
            if quiet {
                let verdict = met.map { $0 ? "ok  " : "FAIL" } ?? "n/a "
                ctx.print("\(verdict) \(file) [\(name)] expected \(expectation?.description ?? "nothing"), got \(r.violatedInvariants.map(\.rawValue).joined(separator: ", ").ifEmpty("no violation"))")
                continue
            }
            ctx.print("# \(sc.title)")
            if !sc.description.isEmpty { ctx.print("# \(sc.description)") }
            if let note = sc.renumberingNote { ctx.print("# \(note)") }
            ctx.print("# \(file) — strategy \(name), seed \(sc.seed), \(sc.schedule.actions.count) actions, trace \(r.traceHashHex)")
            ctx.print("")
            for (i, l) in r.trace.enumerated() {
                ctx.print("\(String(i + 1).leftPad(4))  t=\(String(l.time))ms".padding(toLength: 20, withPad: " ", startingAt: 0) + "  " + l.text)
            }
            ctx.print("")
            if r.violations.isEmpty { ctx.print("no violation") }
            for v in r.violations { ctx.print("VIOLATION \(v)") }
            switch met {
            case true?: ctx.print("expectation met: \(expectation!) under \(name)")
            case false?: ctx.print("EXPECTATION NOT MET: expected \(expectation!) under \(name)")
            case nil: ctx.print("no expectation recorded for \(name)")
            }
            ctx.print("")
        }
        if explainSession.interrupted { return Interruption.exitStatus }
        return allMet ? ExitCode.ok : ExitCode.violation
    }
}

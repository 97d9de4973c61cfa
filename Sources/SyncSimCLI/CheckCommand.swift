import Foundation
#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

struct CheckCommand: Command {
    static let name = "check"
    static let summary = "Judge a recorded history (JSON Lines) with the same oracles"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) check HISTORY.jsonl [--contract IDS|STRATEGY] [--arbitration RULE] [--trace] [--json] [--report-dir DIR]
               \(tool) check --roundtrip SEEDS [--strategy NAME] [--time-budget 60s]
               \(tool) check --bench-events N [--keep FILE]

        Reads a history recorded from a real app and server (or exported by 'run --history' /
        'replay --history'), streaming it line by line, and judges it with every built-in oracle
        the history has the data for. Lists the oracles it could not run and why (for example,
        no subscription results were recorded), then each violation, as 'replay' prints them.
        The format (one JSON event per line after a header line) is documented in the
        RecordingHistories article and the README.

        OPTIONS:
          --contract IDS|STRATEGY  the invariants the system claims: a comma-separated list of
                                   invariant ids, or a strategy name (its contract, with its
                                   conditional claims under the header's options). Default: the
                                   header's contract; without one, every invariant judged.
          --arbitration RULE       the conflict rule: serverArrival, clientTimestamp,
                                   hybridLogicalClock or recordTimestamp (default: the header's;
                                   without one, the oracles that need it are not run)
          --trace                  also print the history as a numbered story
          --json                   print one JSON object (judged, notRun, violations, contractMet)
          --report-dir DIR         also write report.md, report.html, report.json and junit.xml
          --roundtrip SEEDS        instead: simulate each seed (e.g. 0..<500) under each strategy
                                   (or --strategy), export it, check it, and compare with the run's
                                   violations; exit 1 on any disagreement
          --time-budget 60s        with --roundtrip: stop cleanly when spent (ms, s, m or h; default
                                   none), saying how far it got; Ctrl-C stops it the same way
          --bench-events N         instead: write a synthetic history of N events to a temporary
                                   file (or --keep FILE), time its check, print seconds and peak memory

        EXIT CODES: 0 no violation of the contract, 1 a violation of the contract (or a roundtrip
        disagreement), 2 bad input: a malformed line is reported as file:line:column: path: message.

        EXAMPLES:
          \(tool) check staging.jsonl --contract instant
          \(tool) run --strategy sharedDiff --seed 0 --history run.jsonl && \(tool) check run.jsonl
          \(tool) check --roundtrip 0..<500
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let contractArg = try args.value("--contract")
        let arbitrationArg = try args.value("--arbitration")
        let json = args.flag("--json")
        let trace = args.flag("--trace")
        let reportDir = try args.value("--report-dir")
        let roundtrip = try args.value("--roundtrip").map { try OptionValues.seedRange($0, option: "--roundtrip") }
        let strategy = try args.strategy(in: ctx)
        let benchEvents = try args.int("--bench-events", in: 1...HistoryLimits.maxLines)
        let budgetArg = try args.value("--time-budget")
        let keep = try args.value("--keep")
        let paths = args.positionals()
        try args.finish()
        if let roundtrip {
            guard paths.isEmpty, benchEvents == nil else { throw UsageError("--roundtrip takes no HISTORY file and no --bench-events") }
            let budget = try budgetArg.map { try OptionValues.budget($0) } ?? nil
            return try runRoundTrip(roundtrip, strategies: strategy.map { [$0] } ?? ctx.strategies.strategies, budget: budget, ctx)
        }
        if budgetArg != nil { throw UsageError("--time-budget goes with --roundtrip") }
        if strategy != nil { throw UsageError("--strategy goes with --roundtrip; to judge a history by a strategy's contract, use --contract NAME") }
        if let benchEvents {
            guard paths.isEmpty else { throw UsageError("--bench-events takes no HISTORY file (it writes its own; --keep FILE keeps it)") }
            return try bench(events: benchEvents, keep: keep, ctx)
        }
        if keep != nil { throw UsageError("--keep goes with --bench-events") }
        guard paths.count == 1 else {
            throw UsageError(paths.isEmpty ? "'check' needs a HISTORY file, e.g. '\(ctx.commandName) check staging.jsonl'"
                                           : "'check' takes one HISTORY file, got \(paths.count)")
        }
        var arbitration: Arbitration?
        if let a = arbitrationArg {
            guard let v = Arbitration(rawValue: a) else {
                throw UsageError("--arbitration expects \(Arbitration.namesForHumans), got '\(OptionValues.shown(a))'")
            }
            arbitration = v
        }
        let file = paths[0]
        // Named here, quoted and clipped, before anything is read: a hostile path ('-H', '=',
        // control characters) must come back recognisable, not as a bare 'file: cannot read'.
        var isFolder: ObjCBool = false
        guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder) else {
            throw UsageError("no history file named '\(OptionValues.shown(file, limit: 200))'; name a JSON Lines history, e.g. one written by '\(ctx.commandName) run --history FILE'")
        }
        if isFolder.boolValue {
            throw UsageError("'\(OptionValues.shown(file, limit: 200))' is a folder; 'check' takes one HISTORY file")
        }
        if let reportDir { try ReportWriter.prepareFolder(reportDir) }
        var options = HistoryCheck.Options(arbitration: arbitration, keepStory: trace || reportDir != nil,
                                           knownInvariants: ctx.invariants.custom.map(\.id))
        let started = Date()
        var result: HistoryCheck.Result
        do {
            result = try HistoryCheck.check(path: file, options)
        } catch {
            ctx.printError("error: \(error)")
            return ExitCode.usage
        }
        if let contractArg {
            options.contract = try contract(contractArg, header: result.header, ctx)
            result.contract = options.contract!
        }
        let seconds = Date().timeIntervalSince(started)
        if json {
            ctx.print(try HistoryReport.JSON(file: file, result).text())
        } else {
            if trace { RunCommand.printStory(lines: result.story, ctx) }
            printSummary(file, result, seconds: seconds, ctx)
        }
        if let reportDir {
            try HistoryReport.write(result, file: file, to: reportDir)
            if !json { ctx.print("reports     \(reportDir)/report.md, report.html, report.json, junit.xml") }
        }
        return result.contractViolations.isEmpty ? ExitCode.ok : ExitCode.violation
    }

    /// `--contract`: a strategy's name (its claims under the history's options) or invariant ids.
    static func contract(_ s: String, header: HistoryHeader, _ ctx: CLIContext) throws -> Set<InvariantID> {
        if let st = ctx.strategies.strategies.first(where: { $0.name == s }) {
            var options = SimulationOptions()
            options.persistence = header.persistence
            return Set(ctx.invariants.entries.map(\.id).filter { st.info.claims($0, under: options) })
        }
        var out = Set<InvariantID>()
        for part in s.split(separator: ",", omittingEmptySubsequences: false).map({ $0.trimmingCharacters(in: .whitespaces) }) {
            guard let id = ctx.invariants.entries.map(\.id).first(where: { $0.rawValue == part }) else {
                let names = ctx.invariants.entries.map(\.id).map(\.rawValue) + ctx.strategies.names
                let close = NameSuggestion.closest(to: part, in: names, limit: 1)
                throw UsageError("--contract expects invariant ids separated by commas or a strategy name; '\(OptionValues.shown(part))' is neither" + (close.isEmpty ? "" : " (did you mean '\(close[0])'?)") + "; see '\(ctx.commandName) list invariants'")
            }
            out.insert(id)
        }
        return out
    }

    static func printSummary(_ file: String, _ r: HistoryCheck.Result, seconds: Double, _ ctx: CLIContext) {
        ctx.print("history     \(file)" + (r.header.strategy.map { " (\($0))" } ?? ""))
        ctx.print("lines       \(r.lines)   intents \(r.intents)   commits \(r.commits)   told \(r.told)   (\(String(format: "%.2f", seconds)) s)")
        ctx.print("clients     \(r.header.clients)   persistence \(r.header.persistence ? "on" : "off")   queue cap \(r.header.queueCap.map(String.init) ?? "not declared")   arbitration \(r.arbitration)")
        ctx.print("judged      \(r.judged.count) invariants: \(r.judged.map(\.rawValue).joined(separator: ", "))")
        if r.notRun.isEmpty {
            ctx.print("not run     none")
        } else {
            ctx.print("not run     \(r.notRun.count) invariants (the history lacks their inputs):")
            for (id, why) in r.notRun { ctx.print("  \(id.rawValue.rightPad(31)) \(why)") }
        }
        if r.violations.isEmpty {
            ctx.print("violations  none")
        } else {
            let claimed = r.contractViolations.count
            ctx.print("violations  \(r.violations.count): \(claimed) of the contract, \(r.violations.count - claimed) of invariants not claimed"
                      + (r.suppressed > 0 ? " (\(r.suppressed) more repeats not shown)" : ""))
            for v in r.violations { ctx.print("VIOLATION \(r.contract.contains(v.invariant) ? "[claimed]    " : "[not claimed]") \(v)") }
        }
        ctx.print("contract    \(r.contractViolations.isEmpty ? "met" : "VIOLATED")")
    }

    /// Simulates and re-judges each seed; a range is as long as asked, so the run stops cleanly
    /// at `--time-budget` or Ctrl-C (checked between seeds) and says how far it got.
    static func runRoundTrip(_ seeds: SeedRange, strategies: [AnyStrategy], budget: Double?, _ ctx: CLIContext) throws -> Int32 {
        try Interruption.whileHandling { interrupted in
            try roundTrip(seeds, strategies: strategies, budget: budget, interrupted: interrupted, ctx)
        }
    }

    static func roundTrip(_ seeds: SeedRange, strategies: [AnyStrategy], budget: Double?,
                          interrupted: () -> Bool, _ ctx: CLIContext) throws -> Int32 {
        ctx.noteIfDebugBuild()
        var failures = 0
        let started = Date()
        var stoppedBy: String?
        for s in strategies where stoppedBy == nil {
            var runs = 0, lines = 0, withViolations = 0
            var first: HistoryRoundTrip.Mismatch?
            var bad = 0
            for seed in seeds.lowerBound..<seeds.upperBound {
                if interrupted() { stoppedBy = "an interrupt (\(Interruption.signalName))"; break }
                if let budget, Date().timeIntervalSince(started) >= budget { stoppedBy = "the time budget"; break }
                let (m, n, v) = try HistoryRoundTrip.compare(s, seed: seed)
                runs += 1
                lines += n
                if let m { bad += 1; if first == nil { first = m } }
                if v > 0 { withViolations += 1 }
            }
            failures += bad
            ctx.print("\(s.name.rightPad(16)) \(runs) seeds, \(lines) history lines, \(withViolations) runs with violations, \(bad) disagreements" + (first.map { "; first: \($0)" } ?? ""))
        }
        let took = String(format: "%.1f", Date().timeIntervalSince(started))
        if let stoppedBy {
            ctx.print("roundtrip   \(failures == 0 ? "exact so far" : "\(failures) DISAGREEMENTS"): stopped by \(stoppedBy) after \(took) s, before seeds \(seeds) × \(strategies.count) strategies were all run (the lines above say how many seeds each strategy ran)")
            if interrupted() { return Interruption.exitStatus }
        } else {
            ctx.print("roundtrip   \(failures == 0 ? "exact" : "\(failures) DISAGREEMENTS") over seeds \(seeds) × \(strategies.count) strategies in \(took) s")
        }
        return failures == 0 ? ExitCode.ok : ExitCode.violation
    }

    static func bench(events: Int, keep: String?, _ ctx: CLIContext) throws -> Int32 {
        ctx.noteIfDebugBuild()
        let path = keep ?? (NSTemporaryDirectory() + "syncsim-bench-\(getpid()).jsonl")
        guard FileManager.default.createFile(atPath: path, contents: nil), let h = FileHandle(forWritingAtPath: path) else {
            throw UsageError("cannot write the synthetic history to '\(OptionValues.shown(path, limit: 200))'")
        }
        var buffer = Data()
        let t0 = Date()
        let n = SyntheticHistory.generate(events: events) { line in
            buffer.append(contentsOf: line.utf8)
            buffer.append(0x0A)
            if buffer.count >= 1 << 20 { h.write(buffer); buffer.removeAll(keepingCapacity: true) }
        }
        h.write(buffer)
        try? h.close()
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        let generated = Date().timeIntervalSince(t0)
        let rssBefore = peakResidentBytes()
        let cpu0 = cpuSeconds()
        let t1 = Date()
        let result: HistoryCheck.Result
        do { result = try HistoryCheck.check(path: path) } catch {
            ctx.printError("error: the synthetic history does not check: \(error)")
            return ExitCode.violation
        }
        let checked = Date().timeIntervalSince(t1)
        let cpu = cpuSeconds().flatMap { c in cpu0.map { c - $0 } }
        let rss = peakResidentBytes()
        if keep == nil { try? FileManager.default.removeItem(atPath: path) }
        ctx.print("history     \(n) events, \(size / 1_048_576) MiB (generated in \(String(format: "%.2f", generated)) s)" + (keep.map { ", kept at \($0)" } ?? ""))
        ctx.print("check       \(String(format: "%.2f", checked)) s wall" + (cpu.map { String(format: ", %.2f s CPU", $0) } ?? "")
                  + ", \(Int(Double(n) / max(checked, 1e-9))) events/s; \(result.judged.count) invariants judged, \(result.violations.count) violations")
        ctx.print("decoded     \(result.fastLines) of \(result.lines) lines by the fast decoder, the rest by the exact reader")
        ctx.print("peak RSS    " + (rss.map { "\($0 / 1_048_576) MiB (process peak; \(rssBefore.map { "\($0 / 1_048_576) MiB" } ?? "?") before the check)" } ?? "not available on this platform"))
        return result.violations.isEmpty ? ExitCode.ok : ExitCode.violation
    }

    /// User plus system CPU seconds of this process so far (a loaded machine inflates wall time).
    static func cpuSeconds() -> Double? {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
        var u = rusage()
        #if canImport(Glibc)
        guard getrusage(RUSAGE_SELF.rawValue, &u) == 0 else { return nil }
        #else
        guard getrusage(RUSAGE_SELF, &u) == 0 else { return nil }
        #endif
        return Double(u.ru_utime.tv_sec) + Double(u.ru_utime.tv_usec) / 1e6 + Double(u.ru_stime.tv_sec) + Double(u.ru_stime.tv_usec) / 1e6
        #else
        return nil
        #endif
    }

    /// The process's peak resident set size in bytes (getrusage), where the platform has it.
    static func peakResidentBytes() -> Int? {
        #if canImport(Darwin)
        var u = rusage()
        guard getrusage(RUSAGE_SELF, &u) == 0 else { return nil }
        return Int(u.ru_maxrss)            // bytes on Darwin
        #elseif canImport(Glibc)
        var u = rusage()
        guard getrusage(RUSAGE_SELF.rawValue, &u) == 0 else { return nil }
        return Int(u.ru_maxrss) * 1024     // kilobytes on Linux
        #elseif canImport(Musl)
        var u = rusage()
        guard getrusage(RUSAGE_SELF, &u) == 0 else { return nil }
        return Int(u.ru_maxrss) * 1024     // kilobytes on Linux
        #else
        return nil
        #endif
    }
}

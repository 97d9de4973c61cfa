import Foundation

/// Replays a failure database before a fuzz run explores seeds, and afterwards tells which of
/// the run's failures are new and saves them.
///
/// Why before: in CI the seeds change every run (`--seeds random`, `SYNCSIM_SEED_START`), so a
/// failure found yesterday is not found again by chance; replaying its file each run is what
/// keeps it visible until it is fixed, and says when it is.
enum KnownFailureReplay {
    /// Each entry's expectation for each fuzzed strategy it names, replayed in file order, then
    /// strategy order. Stops (keeping a prefix) when `halt` says so.
    static func replay(_ db: FailureDatabase, strategies: [AnyStrategy], commands: ReplayCommands, halt: RunStop) -> FailureDatabaseReport {
        var known: [FailureDatabaseReport.Known] = []
        var stopped = false
        outer: for entry in db.entries {
            for s in strategies {
                guard let expectation = entry.scenario.expect[s.name] else { continue }
                if halt.shouldStop() { stopped = true; break outer }
                let r = RunStop.$current.withValue(halt) { try? s.run(entry.scenario.schedule, seed: entry.scenario.seed) }
                guard let r, !r.interrupted else {
                    if r?.interrupted == true || halt.shouldStop() { stopped = true; break outer }
                    continue
                }
                let got = r.violatedInvariants
                let status: FailureDatabaseReport.Known.Status
                switch expectation {
                case .fails(let inv): status = got.contains(inv) ? .stillFailing : .fixed
                case .holds: status = got.isEmpty ? .holds : .regressed
                }
                let breaks = (status == .stillFailing || status == .regressed)
                    && got.contains { s.info.claims($0, under: entry.scenario.schedule.options) }
                known.append(.init(file: entry.file, strategy: s.name, expected: expectation.description, status: status,
                                   got: got.map(\.rawValue), breaksContract: breaks,
                                   replay: commands.replay(path: entry.file) + (entry.scenario.strategy == s.name ? "" : " --strategy \(ReplayCommands.quoted(s.name))")))
            }
        }
        return FailureDatabaseReport(folder: db.folder, known: known, new: [], stopped: stopped)
    }

    /// The run's failures that no still-failing entry records (same strategy and invariant);
    /// with `save`, each shrunk one is written into the database folder (never over a file).
    static func newFailures(_ report: inout FailureDatabaseReport, failures: [FuzzReport.Failure],
                            scenarios: [FuzzResult.ShrunkScenario], save: Bool) throws {
        let stillFailing = Set(report.stillFailing.map { "\($0.strategy)\u{0}\($0.expected)" })
        for f in failures where !stillFailing.contains("\(f.strategy)\u{0}\(f.invariant)") {
            var saved: String?
            let name = FailureDatabase.fileName(strategy: f.strategy, invariant: f.invariant, seed: f.seed)
            if save, let sc = scenarios.first(where: { $0.file == "scenarios/\(name)" }) {
                let path = (report.folder as NSString).appendingPathComponent(name)
                if !FileManager.default.fileExists(atPath: path) {
                    try AtomicFile.write(try sc.scenario.encoded(), to: path)
                }
                saved = path
            }
            report.new.append(.init(strategy: f.strategy, invariant: f.invariant, seed: f.seed, claimed: f.claimed, savedAs: saved))
        }
    }
}

import Foundation

/// Joins the report folders of sharded fuzz runs into one report. Strategies are described by
/// the shard reports themselves (name, contract, …), so a merge judges user strategies the
/// merging tool has never heard of exactly as the fuzzing tool did. With every shard present the
/// result equals the unsharded run's report, apart from timing and the folder in replay commands.
public enum ReportMerger {
    /// Loads `dirs`, checks they are shards of one run, copies their shrunk scenarios into
    /// `out` and writes the merged report there (every file atomically).
    public static func merge(_ dirs: [String], into out: String, commandPrefix: String = "swift run syncsim") throws -> FuzzReport {
        guard !dirs.isEmpty else { throw ReportMergeError("name at least one report folder") }
        let reports = try dirs.map(ReportWriter.load)
        let base = reports[0]
        let described = base.strategies.map(\.strategyDescription)
        for (d, r) in zip(dirs, reports).dropFirst() {
            let o = r.options, b = base.options
            guard o.strategies == b.strategies, o.seeds == b.seeds, o.swarm == b.swarm, o.clients == b.clients,
                  o.actions == b.actions, o.shrink == b.shrink else {
                throw ReportMergeError("\(d)/report.json: options differ from \(dirs[0]) (strategies, seeds, swarm, clients, actions and shrink must match)")
            }
            let theirs = r.strategies.map(\.strategyDescription)
            if theirs != described {
                let name = zip(theirs, described).first { $0 != $1 }?.0.name ?? "(the list of strategies)"
                throw ReportMergeError("\(d)/report.json: strategy '\(name)' is described differently than in \(dirs[0]) (summary, arbitration, contract or user invariants); merge shards of one tool version")
            }
        }
        var records: [String: RunRecord] = [:]
        for (d, r) in zip(dirs, reports) {
            for rec in r.runs {
                let key = "\(rec.strategy)#\(rec.seed)"
                if let old = records[key], old != rec {
                    throw ReportMergeError("\(d)/report.json: run \(rec.strategy) seed \(rec.seed) differs from another folder's (different tool versions?)")
                }
                records[key] = rec
            }
        }
        // Per (strategy, invariant) keep the failure with the smallest seed, as the unsharded
        // run would (a claimed one first: a conditional claim's failure in a run where its
        // condition held beats an earlier expected one); ties keep the first folder named.
        var failures: [String: (failure: FuzzReport.Failure, dir: String)] = [:]
        for (d, r) in zip(dirs, reports) {
            for f in r.failures {
                let key = "\(f.strategy)#\(f.invariant)"
                if let old = failures[key], (old.failure.claimed ? 0 : 1, old.failure.seed) <= (f.claimed ? 0 : 1, f.seed) { continue }
                failures[key] = (f, d)
            }
        }
        let commands = ReplayCommands(prefix: commandPrefix)
        var merged: [FuzzReport.Failure] = []
        for key in failures.keys.sorted() {
            var (f, d) = failures[key]!
            if let file = f.scenario {
                // The path comes from a file; never let it reach outside the folders.
                let parts = file.split(separator: "/", omittingEmptySubsequences: false)
                guard parts.count == 2, parts[0] == "scenarios", !parts[1].isEmpty, !parts[1].hasPrefix("."), file.hasSuffix(".json") else {
                    throw ReportMergeError("\(d)/report.json: scenario path '\(file)' is not scenarios/<name>.json")
                }
                guard let text = FileManager.default.contents(atPath: "\(d)/\(file)").map({ String(decoding: $0, as: UTF8.self) }) else {
                    throw ReportMergeError("\(d)/\(file): cannot read the scenario file \(d)/report.json names")
                }
                try AtomicFile.write(text, to: "\(out)/\(file)")
                f.replay = commands.replay(path: "\(out)/\(file)")
            }
            merged.append(f)
        }
        let shardNames = Set(reports.compactMap(\.options.shard))
        let counts = Set(shardNames.compactMap { $0.split(separator: "/").last.flatMap { Int($0) } })
        guard counts.count <= 1 else {
            throw ReportMergeError("the folders are shards of different splits (\(shardNames.sorted().joined(separator: ", "))); merge shards K/N of one N")
        }
        let allShards = counts.first.map { shardNames.count == $0 } ?? true
        var options = base.options
        options.shard = allShards ? nil : shardNames.sorted().joined(separator: "+")
        let timing = FuzzReport.Timing(startedAt: reports.map(\.timing.startedAt).min() ?? "",
                                       wallSeconds: reports.reduce(0) { $0 + $1.timing.wallSeconds },
                                       runsPerSecond: reports.reduce(0) { $0 + $1.timing.runsPerSecond },
                                       shrinkSeconds: reports.reduce(0) { $0 + $1.timing.shrinkSeconds })
        let report = FuzzReport.build(strategies: described, options: options, complete: allShards && reports.allSatisfy(\.complete),
                                      records: Array(records.values), failures: merged, timing: timing)
        try ReportWriter.write(report, to: out)
        return report
    }
}

/// Report folders that cannot be merged; the message names the folder and the mismatch.
public struct ReportMergeError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

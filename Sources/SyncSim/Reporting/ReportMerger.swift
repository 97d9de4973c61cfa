import Foundation

/// Joins the report folders of sharded fuzz runs into one report. Strategies are described by
/// the shard reports themselves (name, contract, …), so a merge judges user strategies the
/// merging tool has never heard of exactly as the fuzzing tool did. With every shard present the
/// result equals the unsharded run's report, apart from timing and the folder in replay commands.
///
/// A merge reads and writes only inside the folders it is given: scenario paths from a report
/// must be `scenarios/<name>.json`, and neither they nor the `scenarios` folders may be symbolic
/// links (which could point anywhere); the output folder must not be one of the inputs (it
/// would overwrite a shard's own report).
public enum ReportMerger {
    /// Loads `dirs`, checks they are shards of one run, copies their shrunk scenarios into
    /// `out` and writes the merged report there (every file atomically).
    public static func merge(_ dirs: [String], into out: String, commandPrefix: String = "swift run syncsim") throws -> FuzzReport {
        guard !dirs.isEmpty else { throw ReportMergeError("name at least one report folder") }
        guard !out.isEmpty else { throw ReportMergeError("the output folder is an empty path; name a folder, e.g. Reports/merged") }
        let outReal = realPath(out)
        for d in dirs where outReal != nil && realPath(d) == outReal {
            throw ReportMergeError("the output folder \(out) is the input folder \(d): merging would overwrite that shard's report; write the merge to a new folder")
        }
        if isSymbolicLink("\(out)/scenarios") {
            throw ReportMergeError("\(out)/scenarios is a symbolic link: the merge writes only inside \(out); remove the link")
        }
        for d in dirs where isSymbolicLink("\(d)/report.json") {
            throw ReportMergeError("\(d)/report.json is a symbolic link (the merge reads only inside the folders it is given); copy the real file there")
        }
        let reports = try dirs.map(ReportWriter.load)
        let base = reports[0]
        let described = base.strategies.map(\.strategyDescription)
        for (d, r) in zip(dirs, reports) {
            if let problem = r.options.workloadProblem { throw ReportMergeError("\(d)/report.json: \(problem)") }
        }
        for (d, r) in zip(dirs, reports).dropFirst() {
            let o = r.options, b = base.options
            guard o.strategies == b.strategies, o.seeds == b.seeds, o.swarm == b.swarm, o.clients == b.clients,
                  o.actions == b.actions, o.shrink == b.shrink, o.baseline == b.baseline,
                  o.tenants == b.tenants, o.also ?? [] == b.also ?? [] else {
                throw ReportMergeError("\(d)/report.json: options differ from \(dirs[0]) (strategies, seeds, swarm, clients, actions, shrink, baseline, tenants and also must match)")
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
                if isSymbolicLink("\(d)/scenarios") || isSymbolicLink("\(d)/\(file)") {
                    throw ReportMergeError("\(d)/\(file): a symbolic link (the merge reads only inside the folders it is given); copy the real file there")
                }
                let data: Data
                do {
                    data = try ReportWriter.readRegularFile("\(d)/\(file)", limit: ReportWriter.maxReportBytes, what: "the scenario file \(d)/report.json names")
                } catch let e as ReportFileError {
                    throw ReportMergeError(e.description)
                }
                let text = String(decoding: data, as: UTF8.self)
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
        var report = FuzzReport.build(strategies: described, options: options, complete: allShards && reports.allSatisfy(\.complete),
                                      records: Array(records.values), failures: merged, timing: timing)
        // A shard cut short cuts the merge short, for the first such shard's reason.
        report.stopReason = reports.lazy.compactMap(\.stopReason).first
        try ReportWriter.write(report, to: out)
        return report
    }
}

/// The canonical path of an existing file or folder (symbolic links resolved); nil if none.
private func realPath(_ path: String) -> String? {
    guard let p = realpath(path, nil) else { return nil }
    defer { free(p) }
    return String(cString: p)
}

/// Whether `path` itself is a symbolic link (not followed).
private func isSymbolicLink(_ path: String) -> Bool {
    var st = stat()
    return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
}

/// Report folders that cannot be merged; the message names the folder and the mismatch.
public struct ReportMergeError: Error, Equatable, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

import Foundation
import SyncSim

struct MergeCommand: Command {
    static let name = "merge"
    static let summary = "Merge shard report folders into one report"
    static let help = """
    USAGE: syncsim merge DIR... [--report-dir OUT]

    Joins the report folders of 'syncsim fuzz --shard K/N' runs (same strategies, seeds and
    generator options) into one report in every format. When all N shards are present the result
    equals the report of the unsharded run (apart from timing). Scenario files are copied along.

    EXAMPLE:
      syncsim merge Reports/shard-1 Reports/shard-2 --report-dir Reports/merged
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let out = try args.value("--report-dir") ?? "Reports/merged-\(utcStamp())"
        let dirs = args.positionals()
        try args.finish()
        guard !dirs.isEmpty else { throw UsageError("name at least one report folder") }
        let reports = try dirs.map(ReportWriter.load)
        let base = reports[0].options
        for (d, r) in zip(dirs, reports) {
            let o = r.options
            guard o.strategies == base.strategies, o.seeds == base.seeds, o.swarm == base.swarm, o.clients == base.clients,
                  o.actions == base.actions, o.shrink == base.shrink else {
                throw UsageError("\(d)/report.json: options differ from \(dirs[0]) (strategies, seeds, swarm, clients, actions and shrink must match)")
            }
        }
        var records: [String: RunRecord] = [:]
        for (d, r) in zip(dirs, reports) {
            for rec in r.runs {
                let key = "\(rec.strategy)#\(rec.seed)"
                if let old = records[key], old != rec {
                    throw UsageError("\(d)/report.json: run \(rec.strategy) seed \(rec.seed) differs from another folder's (different syncsim versions?)")
                }
                records[key] = rec
            }
        }
        // Per (strategy, invariant) keep the failure with the smallest seed, as the unsharded run would.
        var failures: [String: (FuzzReport.Failure, String)] = [:]
        for (d, r) in zip(dirs, reports) {
            for f in r.failures {
                let key = "\(f.strategy)#\(f.invariant)"
                if let old = failures[key], old.0.seed <= f.seed { continue }
                failures[key] = (f, d)
            }
        }
        var merged: [FuzzReport.Failure] = []
        for (_, (f, d)) in failures.sorted(by: { $0.key < $1.key }) {
            var f = f
            if let file = f.scenario {
                let src = "\(d)/\(file)"
                if let text = try? String(contentsOfFile: src, encoding: .utf8) {
                    try writeAtomically(text, to: "\(out)/\(file)")
                    f.replay = "swift run syncsim replay \(out)/\(file)"
                }
            }
            merged.append(f)
        }
        let shards = Set(reports.compactMap(\.options.shard))
        let n = reports.compactMap { $0.options.shard?.split(separator: "/").last.flatMap { Int($0) } }.first
        let allShards = n.map { shards.count == $0 } ?? true
        var options = base
        options.shard = allShards ? nil : shards.sorted().joined(separator: "+")
        let timing = FuzzReport.Timing(startedAt: reports.map(\.timing.startedAt).min() ?? "",
                                       wallSeconds: reports.reduce(0) { $0 + $1.timing.wallSeconds },
                                       runsPerSecond: reports.reduce(0) { $0 + $1.timing.runsPerSecond },
                                       shrinkSeconds: reports.reduce(0) { $0 + $1.timing.shrinkSeconds })
        let report = FuzzReport.build(options: options, complete: allShards && reports.allSatisfy(\.complete),
                                      records: Array(records.values), failures: merged, timing: timing)
        try ReportWriter.write(report, to: out)
        FuzzCommand.printSummary(report, dir: out)
        return report.allContractsMet ? ExitCode.ok : ExitCode.violation
    }
}

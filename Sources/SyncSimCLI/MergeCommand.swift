import Foundation

struct MergeCommand: Command {
    static let name = "merge"
    static let summary = "Merge shard report folders into one report"
    static func help(_ tool: String) -> String {
        """
        USAGE: \(tool) merge DIR... [--report-dir OUT]

        Joins the report folders of '\(tool) fuzz --shard K/N' runs (same strategies, seeds and
        generator options) into one report in every format. When all N shards are present the result
        equals the report of the unsharded run (apart from timing). Scenario files are copied along.
        Strategies are judged by the contracts recorded in the shard reports.

        EXAMPLE:
          \(tool) merge Reports/shard-1 Reports/shard-2 --report-dir Reports/merged
        """
    }

    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32 {
        let out = try args.value("--report-dir") ?? "Reports/merged-\(FuzzCommand.utcStamp())"
        let dirs = args.positionals()
        try args.finish()
        guard !dirs.isEmpty else { throw UsageError("'merge' needs at least one report folder DIR, e.g. '\(ctx.commandName) merge Reports/shard-1 Reports/shard-2'") }
        for d in dirs {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: d, isDirectory: &isDir), isDir.boolValue else {
                throw UsageError("no report folder named '\(OptionValues.shown(d, limit: 200))'; name folders written by '\(ctx.commandName) fuzz --report-dir DIR'")
            }
        }
        let report: FuzzReport
        do {
            report = try ReportMerger.merge(dirs, into: out, commandPrefix: ctx.commands.prefix)
        } catch let e as ReportMergeError {
            throw UsageError(e.description)
        } catch let e as ReportFileError {
            throw UsageError(e.description)
        }
        FuzzCommand.printSummary(report, dir: out, ctx)
        return report.allContractsMet ? ExitCode.ok : ExitCode.violation
    }
}

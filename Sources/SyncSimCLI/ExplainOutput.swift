import Foundation

/// `replay --explain`: runs the `Explainer` on each scenario and prints the result as text after
/// the story, or as one JSON array (`--json`). Ctrl-C and SIGTERM stop the replays (through
/// `RunStop`); what was judged is still printed, marked incomplete.
enum ExplainOutput {
    /// The invariant a file is about under `strategy`: its expectation when that names one,
    /// else nil (the first violation).
    static func target(_ sc: Scenario, _ strategy: AnyStrategy) -> InvariantID? {
        if case .fails(let i)? = sc.expect[strategy.name] { return i }
        return nil
    }

    /// One `replay --explain` invocation: Ctrl-C during one file's explanation stops the rest
    /// too (the handler, installed again per file, would otherwise forget it) and sets the exit
    /// status. Used from one thread.
    final class Session: @unchecked Sendable {
        var interrupted = false
    }

    static func explain(_ sc: Scenario, _ strategy: AnyStrategy, maxRuns: Int?, _ session: Session) -> Result<Explanation, ExplainError> {
        if session.interrupted { return .failure(.stoppedBeforeFirstRun) }
        defer { if Interruption.signalNumber != 0 { session.interrupted = true } }
        return Interruption.whileHandling { interrupted in
            let stop = RunStop(interrupted)
            let explainer = Explainer(strategy: strategy, seed: sc.seed,
                                      budget: ExplainBudget(maxRuns: maxRuns ?? 2_000, shouldStop: interrupted))
            return RunStop.$current.withValue(stop) {
                do {
                    return .success(try explainer.explain(sc.schedule, invariant: target(sc, strategy)))
                } catch let e as ExplainError {
                    return .failure(e)
                } catch {
                    return .failure(.invalidSchedule("\(error)"))
                }
            }
        }
    }

    static func text(_ file: String, _ sc: Scenario, _ strategy: AnyStrategy, maxRuns: Int?, _ session: Session, _ ctx: CLIContext) {
        let t0 = WallClock.seconds()
        switch explain(sc, strategy, maxRuns: maxRuns, session) {
        case .success(let e):
            for l in e.lines { ctx.print(l) }
            ctx.print("  (" + String(format: "%.2f s", WallClock.seconds() - t0) + ")")
        case .failure(let e):
            ctx.print("explain: \(file): \(e)")
        }
        ctx.print("")
    }

    /// One JSON array for every file; exit 0 when every file was explained, 1 otherwise.
    static func json(_ runs: [(String, Scenario, AnyStrategy)], maxRuns: Int?, _ ctx: CLIContext) throws -> Int32 {
        struct Entry: Encodable {
            var file: String
            var explanation: Explanation?
            var error: String?
        }
        var entries: [Entry] = []
        let session = Session()
        for (file, sc, strategy) in runs {
            switch explain(sc, strategy, maxRuns: maxRuns, session) {
            case .success(let e): entries.append(Entry(file: file, explanation: e, error: nil))
            case .failure(let e): entries.append(Entry(file: file, explanation: nil, error: "\(e)"))
            }
        }
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        ctx.print(String(decoding: try enc.encode(entries), as: UTF8.self))
        if session.interrupted { return Interruption.exitStatus }
        return entries.allSatisfy { $0.explanation != nil } ? ExitCode.ok : ExitCode.violation
    }
}

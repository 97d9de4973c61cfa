/// Turns the first failing seed of a (strategy, invariant) into a report entry: reruns it for
/// the violation's details, shrinks it (within the time budget), keeps the shrunk run's story
/// for the sequence diagram and explains it by counterfactual replays (`Explainer`, within
/// `explainMaxRuns` and the budget).
///
/// Everything here obeys `halt` (the budget and Ctrl-C), inside runs too (`RunStop`): once it
/// says stop, a failure is reported as found, from its run record, marked `shrinkStopped`, so a
/// report out of budget says which failures were left unshrunk.
struct FailureShrinker: Sendable {
    let generator: WorkloadGenerator.Config
    let configuration: FuzzConfiguration
    let halt: RunStop

    var commands: ReplayCommands { ReplayCommands(prefix: configuration.commandPrefix) }

    /// - Parameter explanation: the violation's explanation from the run record, used when the
    ///   budget leaves no time to rerun the seed.
    func failure(_ strategy: AnyStrategy, _ invariant: InvariantID, seed: UInt64, explanation: String) -> (FuzzReport.Failure, FuzzResult.ShrunkScenario?) {
        RunStop.$current.withValue(halt) { shrunk(strategy, invariant, seed: seed, explanation: explanation) }
    }

    private func shrunk(_ strategy: AnyStrategy, _ invariant: InvariantID, seed: UInt64, explanation: String) -> (FuzzReport.Failure, FuzzResult.ShrunkScenario?) {
        let name = strategy.name
        let schedule = strategy.schedule(seed: seed, generator)
        var failure = FuzzReport.Failure(
            strategy: name, invariant: invariant.rawValue, seed: seed, claimed: strategy.info.claims(invariant, under: schedule.options),
            explanation: explanation, originalActions: schedule.actions.count, shrunkActions: nil, scenario: nil,
            replay: commands.run(strategy: name, seed: seed, generator: generator), trace: [],
            clients: schedule.options.clients, violationTimeMs: nil, violationClient: nil)
        if !halt.shouldStop(), let first = try? strategy.run(schedule, seed: seed), !first.interrupted,
           let v = first.violations.first(where: { $0.invariant == invariant }) {
            failure.explanation = v.explanation
            failure.violationTimeMs = v.time
            failure.violationClient = v.client?.index
        }
        guard configuration.shrink else { return (failure, nil) }
        guard !halt.shouldStop() else {
            failure.shrinkStopped = true
            return (failure, nil)
        }
        let stopped = StopFlag()
        let halt = self.halt
        // Differential mode: a candidate counts only while the baseline still passes the invariant.
        var basePasses: (@Sendable (Schedule) -> Bool)?
        if let b = configuration.baseline, b.name != strategy.name {
            basePasses = { candidate in
                guard let r = try? b.run(candidate, seed: seed), !r.interrupted else { return false }
                return !r.violations.contains { $0.invariant == invariant }
            }
        }
        let outcome = strategy.shrink(schedule, seed: seed, invariant: invariant, maxRuns: configuration.shrinkMaxRuns, shouldStop: {
            if halt.shouldStop() { stopped.set(); return true }
            return false
        }, alsoRequires: basePasses)
        // One more run of the shrunk schedule for its story (the shrinker ran it without one).
        guard let outcome, let shrunk = try? strategy.run(outcome.schedule, seed: seed, trace: .full), !shrunk.interrupted,
              let v = shrunk.violations.first(where: { $0.invariant == invariant }) else {
            if stopped.isSet || halt.shouldStop() { failure.shrinkStopped = true }
            return (failure, nil)
        }
        let file = "scenarios/\(name)-\(invariant.rawValue)-seed\(seed).json"
        let scenario = Scenario(
            title: "\(name) violates \(invariant.rawValue) (shrunk from seed \(seed))", description: v.explanation,
            strategy: name, expect: [name: .fails(invariant)],
            origin: .init(seed: seed, shrunkFrom: seed, originalActions: schedule.actions.count), schedule: outcome.schedule)
        failure.shrunkActions = outcome.schedule.actions.count
        failure.explanation = v.explanation
        failure.trace = shrunk.trace
        failure.clients = outcome.schedule.options.clients
        failure.violationTimeMs = v.time
        failure.violationClient = v.client?.index
        if stopped.isSet { failure.shrinkStopped = true }
        if configuration.explainMaxRuns > 0 && !halt.shouldStop() {
            let explainer = Explainer(strategy: strategy, seed: seed,
                                      budget: ExplainBudget(maxRuns: configuration.explainMaxRuns, shouldStop: halt.shouldStop))
            failure.explain = try? explainer.explain(outcome.schedule, invariant: invariant)
            if let e = failure.explain, !e.necessaryActions.isEmpty {
                failure.necessaryMarks = SequenceDiagram.actionMarks(e.necessaryActions, in: outcome.schedule)
            }
        }
        if let dir = configuration.reportDirectory {
            failure.scenario = file
            failure.replay = commands.replay(path: "\(dir)/\(file)")
        }
        return (failure, FuzzResult.ShrunkScenario(file: file, scenario: scenario))
    }
}

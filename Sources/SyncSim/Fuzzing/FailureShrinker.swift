/// Turns the first failing seed of a (strategy, invariant) into a report entry: reruns it for
/// the violation's details, shrinks it (within the time budget) and keeps the shrunk run's
/// story for the sequence diagram.
struct FailureShrinker: Sendable {
    let generator: WorkloadGenerator.Config
    let configuration: FuzzConfiguration
    let deadline: Double

    var commands: ReplayCommands { ReplayCommands(prefix: configuration.commandPrefix) }

    func failure(_ strategy: AnyStrategy, _ invariant: InvariantID, seed: UInt64) -> (FuzzReport.Failure, FuzzResult.ShrunkScenario?) {
        let name = strategy.name
        let schedule = strategy.schedule(seed: seed, generator)
        let first = (try? strategy.run(schedule, seed: seed))?.violations.first { $0.invariant == invariant }
        var failure = FuzzReport.Failure(
            strategy: name, invariant: invariant.rawValue, seed: seed, claimed: strategy.info.claims(invariant, under: schedule.options),
            explanation: first?.explanation ?? "", originalActions: schedule.actions.count, shrunkActions: nil, scenario: nil,
            replay: commands.run(strategy: name, seed: seed, generator: generator), trace: [],
            clients: schedule.options.clients, violationTimeMs: first?.time, violationClient: first?.client?.index)
        let clock = configuration.clock, deadline = self.deadline
        guard configuration.shrink, clock() <= deadline else { return (failure, nil) }
        let stopped = StopFlag()
        let outcome = strategy.shrink(schedule, seed: seed, invariant: invariant, maxRuns: configuration.shrinkMaxRuns, shouldStop: {
            if clock() > deadline { stopped.set(); return true }
            return false
        })
        // One more run of the shrunk schedule for its story (the shrinker ran it without one).
        guard let outcome, let shrunk = try? strategy.run(outcome.schedule, seed: seed, trace: .full),
              let v = shrunk.violations.first(where: { $0.invariant == invariant }) else { return (failure, nil) }
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
        if let dir = configuration.reportDirectory {
            failure.scenario = file
            failure.replay = commands.replay(path: "\(dir)/\(file)")
        }
        return (failure, FuzzResult.ShrunkScenario(file: file, scenario: scenario))
    }
}

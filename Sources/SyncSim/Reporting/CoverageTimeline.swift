/// Coverage over time: for one strategy, when each coverage situation (`Situation`) and each
/// reach goal (`InvariantReach`: an invariant whose testing situation occurred) was first
/// reached, as the seeds ran in order. A time-to-novelty curve: if the last new situation
/// appeared at run 12 of 200, the next 188 seeds bought nothing new, and a team knows to change
/// the workload (or stop paying for more seeds) rather than run more of the same.
///
/// Why runs and not wall time: the x axis must be deterministic, so the same seeds give the same
/// curve whatever the machine, `--jobs` or sharding. Runs are taken in seed order, from the
/// report's own run records, which every report (and every shard) keeps: a merged report
/// recomputes its timeline from the merged records, so the curve of merged shards is exactly the
/// unsharded run's. Reports written before timelines existed decode with `coverageTimeline` nil
/// and renderers compute it from their records (`FuzzReport.timeline(of:)`).
public struct CoverageTimeline: Codable, Hashable, Sendable {
    /// A run that reached something no earlier run (of this strategy, in seed order) had.
    public struct Novelty: Codable, Hashable, Sendable {
        /// 1-based position of the run among this strategy's runs, in seed order.
        public var run: Int
        public var seed: UInt64
        /// What was new, in the catalog order (situations) or column order (reach goals).
        public var new: [String]
        public init(run: Int, seed: UInt64, new: [String]) {
            self.run = run
            self.seed = seed
            self.new = new
        }
    }

    /// Runs of the strategy (the x axis' length).
    public var runs: Int
    /// Runs that reached a new coverage situation (symptoms such as `unsettled` are not
    /// coverage targets and are left out, as in `Coverage.neverReached`).
    public var situations: [Novelty]
    /// Coverage situations there are to reach (`Situation` minus symptoms), plus any situation a
    /// newer build recorded that this one does not know.
    public var situationTotal: Int
    /// Runs that reached a new reach goal; `new` holds invariant ids.
    public var reachGoals: [Novelty]
    /// The strategy's invariants that have a reach goal.
    public var reachGoalTotal: Int

    public init(runs: Int, situations: [Novelty], situationTotal: Int, reachGoals: [Novelty], reachGoalTotal: Int) {
        self.runs = runs
        self.situations = situations
        self.situationTotal = situationTotal
        self.reachGoals = reachGoals
        self.reachGoalTotal = reachGoalTotal
    }

    /// The timeline of `records` (one strategy's runs; sorted here by seed) for a strategy
    /// whose invariants with a reach goal are `goals` (invariant id, situation), in column order.
    public init(records: [RunRecord], goals: [(invariant: String, situation: String)]) {
        let runs = records.sorted { $0.seed < $1.seed }
        let targets = Situation.allCases.filter { !$0.isSymptom }.map(\.rawValue)
        let symptoms = Set(Situation.allCases.filter(\.isSymptom).map(\.rawValue))
        var seen = Set<String>(), unknown = Set<String>(), goalSeen = Set<String>()
        var situations: [Novelty] = [], reach: [Novelty] = []
        for (k, r) in runs.enumerated() {
            let reached = Set(r.situations)
            var new = targets.filter { reached.contains($0) && !seen.contains($0) }
            // Situations this build does not know (a newer tool's records): after the known ones, by bytes.
            let others = r.situations.filter { !targets.contains($0) && !symptoms.contains($0) && !seen.contains($0) }
            new += Array(Set(others)).sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            unknown.formUnion(others)
            seen.formUnion(new)
            if !new.isEmpty { situations.append(Novelty(run: k + 1, seed: r.seed, new: new)) }
            let newGoals = goals.filter { reached.contains($0.situation) && !goalSeen.contains($0.invariant) }.map(\.invariant)
            goalSeen.formUnion(newGoals)
            if !newGoals.isEmpty { reach.append(Novelty(run: k + 1, seed: r.seed, new: newGoals)) }
        }
        self.init(runs: runs.count, situations: situations, situationTotal: targets.count + unknown.count,
                  reachGoals: reach, reachGoalTotal: goals.count)
    }

    /// Distinct situations reached by the end.
    public var situationsCovered: Int { situations.reduce(0) { $0 + $1.new.count } }
    /// Distinct reach goals reached by the end.
    public var reachGoalsCovered: Int { reachGoals.reduce(0) { $0 + $1.new.count } }

    /// "the last new situation appeared at run 43 of 60 (seed 42); 15 of 17 situations reached"
    public var situationSentence: String {
        guard let last = situations.last else {
            return runs == 0 ? "no runs" : "no run reached any of the \(situationTotal) situations in \(runs) runs"
        }
        return "the last new situation appeared at run \(last.run) of \(runs) (seed \(last.seed)); \(situationsCovered) of \(situationTotal) situations reached"
    }

    /// The same for reach goals.
    public var reachGoalSentence: String {
        guard reachGoalTotal > 0 else { return "no invariant with a reach goal" }
        guard let last = reachGoals.last else { return "no reach goal reached in \(runs) runs" }
        return "the last new reach goal appeared at run \(last.run) of \(runs) (seed \(last.seed)); \(reachGoalsCovered) of \(reachGoalTotal) reach goals reached"
    }

    /// Whether the last part of the runs found nothing new (the last novelty of either kind came
    /// in the first half of the runs): a hint that more of the same seeds buys little.
    public var plateaued: Bool {
        let last = max(situations.last?.run ?? 0, reachGoals.last?.run ?? 0)
        return runs >= 20 && last * 2 <= runs
    }
}

extension FuzzReport {
    /// The coverage timeline of `strategy`: the one stored in the report, or (for a report
    /// written before timelines existed) computed from its run records.
    public func timeline(of strategy: StrategyReport) -> CoverageTimeline {
        strategy.coverageTimeline ?? FuzzReport.timeline(records: runs.filter { $0.strategy == strategy.name }, cells: strategy.cells)
    }

    /// What the timelines cover when it is not every planned seed: a shard's own seeds, or the
    /// runs that finished before a stop. Nil for a complete, unsharded (or fully merged) report.
    public var timelineScope: String? {
        if let shard = options.shard {
            return "This report covers shard \(shard) only: its curves are over its own seeds, in order; merge the shards (syncsim merge) for the whole curve."
        }
        if !complete { return "The fuzz run was cut short: the curves cover the \(seedsRun) seeds that finished." }
        return nil
    }

    static func timeline(records: [RunRecord], cells: [Cell]) -> CoverageTimeline {
        CoverageTimeline(records: records, goals: cells.compactMap { c in c.reachSituation.map { (c.invariant, $0) } })
    }
}

extension FuzzReport {
    /// Builds the report from run records and shrunk failures. Order-independent (records and
    /// failures are sorted first), so the same runs give the same report whatever the number
    /// of jobs, and shards merge into the unsharded report.
    ///
    /// Each strategy is judged by the contract in its `StrategyDescription`: a violated claimed
    /// invariant is a contract violation, whether a built-in or a user invariant. A strategy's
    /// cells are the built-ins in catalog order, then the user invariants it was judged by (its
    /// description's `userInvariants`) by id, then any claimed invariant not among those. The
    /// list comes from the description, never from the records, so an invariant that held in
    /// every run still has its cell. `options.strategies` is set to the descriptions' names;
    /// records of strategies not described are ignored.
    public static func build(strategies described: [StrategyDescription], options: Options, complete: Bool,
                             records: [RunRecord], failures: [Failure], timing: Timing) -> FuzzReport {
        var options = options
        options.strategies = described.map(\.name)
        var order: [String: Int] = [:]
        for (i, d) in described.enumerated() where order[d.name] == nil { order[d.name] = i }
        let runs = records.filter { order[$0.strategy] != nil }
            .sorted { (order[$0.strategy]!, $0.seed) < (order[$1.strategy]!, $1.seed) }
        var byStrategy: [String: [RunRecord]] = [:]
        for r in runs { byStrategy[r.strategy, default: []].append(r) }
        let catalog = InvariantID.builtIns.map(\.rawValue)

        var strategies: [StrategyReport] = []
        for d in described {
            let mine = byStrategy[d.name] ?? []
            let claimed = Set(d.contract)
            // Every built-in, then the user invariants this strategy was judged by, then any
            // claimed one neither lists (a claim must never fall out of the judgement because
            // this build does not know its name).
            var invariants = catalog
            for u in d.userInvariants.map(\.id).sorted(by: columnPrecedes) where !invariants.contains(u) { invariants.append(u) }
            invariants += d.contract.filter { !invariants.contains($0) }
            var cells: [Cell] = []
            for inv in invariants {
                let failing = mine.filter { $0.violated.contains(inv) }
                let f = failures.first { $0.strategy == d.name && $0.invariant == inv }
                let goal = InvariantReach.situation(for: inv)?.rawValue
                var cell = Cell(invariant: inv, claimed: claimed.contains(inv), violations: failing.count,
                                firstSeed: failing.map(\.seed).min(), shrunkActions: f?.shrunkActions, scenario: f?.scenario,
                                reachSituation: goal, reachedRuns: goal.map { g in mine.filter { $0.situations.contains(g) }.count })
                if options.baseline != nil {
                    cell.sharedWithBaseline = mine.filter { ($0.baselineShared ?? []).contains(inv) }.count
                }
                if let cond = d.condition(of: inv) {
                    cell.condition = cond.text
                    cell.violationsUnderCondition = failing.filter { ($0.conditions ?? []).contains(cond.condition) }.count
                }
                cells.append(cell)
            }
            let broken = cells.filter(\.breaksContract).map(\.invariant)
            strategies.append(StrategyReport(name: d.name, summary: d.summary, knownBad: d.knownBad, arbitration: d.arbitration,
                                             contract: d.contract, runs: mine.count, metContract: broken.isEmpty,
                                             contractViolations: broken, cells: cells, metrics: metrics(mine),
                                             userInvariants: d.userInvariants.isEmpty ? nil : d.userInvariants,
                                             conditional: d.conditional.isEmpty ? nil : d.conditional,
                                             coverageTimeline: timeline(records: mine, cells: cells)))
        }

        let sortedFailures = failures.filter { order[$0.strategy] != nil }.sorted {
            let (sa, sb) = (order[$0.strategy]!, order[$1.strategy]!)
            if sa != sb { return sa < sb }
            if $0.invariant != $1.invariant { return columnPrecedes($0.invariant, $1.invariant) }
            return $0.seed < $1.seed
        }
        let seeds = Set(runs.map(\.seed)).count
        return FuzzReport(options: options, complete: complete, seedsRun: seeds, strategies: strategies, coverage: coverage(runs),
                          failures: sortedFailures, runs: runs, timing: timing)
    }

    static func metrics(_ mine: [RunRecord]) -> Metrics {
        let conv = mine.compactMap(\.convergeMs).sorted()
        func pct(_ p: Double) -> Int64? { conv.isEmpty ? nil : conv[min(conv.count - 1, Int((Double(conv.count) * p).rounded(.up)) - 1)] }
        let writes = mine.reduce(0) { $0 + $1.userWrites }
        return Metrics(
            convergeMedianMs: pct(0.5), convergeP99Ms: pct(0.99),
            messagesPerWrite: writes == 0 ? 0 : (Double(mine.reduce(0) { $0 + $1.messages }) / Double(writes) * 100).rounded() / 100,
            maxPendingQueue: mine.map(\.maxPending).max() ?? 0,
            writesLost: mine.reduce(0) { $0 + $1.writesLost },
            staleOverwrites: mine.reduce(0) { $0 + $1.staleOverwrites },
            unsettledRuns: mine.filter { !$0.settled }.count,
            events: mine.reduce(0) { $0 + $1.events })
    }

    static func coverage(_ runs: [RunRecord]) -> Coverage {
        var actions: [String: Int] = [:], withAction: [String: Int] = [:], withFault: [String: Int] = [:], reaching: [String: Int] = [:]
        for r in runs {
            for (k, n) in r.actionKinds { actions[k, default: 0] += n; withAction[k, default: 0] += 1 }
            for f in r.faults { withFault[f, default: 0] += 1 }
            for s in r.situations { reaching[s, default: 0] += 1 }
        }
        var never: [String] = []
        for k in ActionKind.allCases where withAction[k.rawValue] == nil && k.isDrawnByDefault { never.append("action: \(k.rawValue)") }
        for f in FaultKind.allCases where withFault[f.rawValue] == nil { never.append("fault: \(f.rawValue)") }
        for s in Situation.allCases where reaching[s.rawValue] == nil && !s.isSymptom { never.append("situation: \(s.rawValue)") }
        return Coverage(runs: runs.count, actions: actions, runsWithAction: withAction, runsWithFault: withFault,
                        runsReaching: reaching, neverReached: never)
    }
}

/// `report.md`: the strategy comparison, readable on GitHub.
public enum MarkdownReport {
    public static func render(_ r: FuzzReport) -> String {
        var o = "# SyncSim fuzz report\n\n"
        o += "Strategies: \(r.options.strategies.joined(separator: ", ")) · seeds \(r.options.seeds)\(r.options.shard.map { " shard \($0)" } ?? "") (\(r.seedsRun) run\(r.complete ? "" : ", **incomplete**")\(r.stopReason.map { (r.complete ? ", shrinking cut short: " : ": ") + $0.sentence } ?? "")) · "
        o += "\(r.options.actions) actions · swarm \(r.options.swarm ? "on" : "off")\(r.options.clients.map { " · \($0) clients" } ?? "")\(r.options.tenants.map { " · \($0) tenants" } ?? "")\(r.options.also.map { $0.isEmpty ? "" : " · also \($0.joined(separator: ","))" } ?? "")\n\n"
        if let b = r.options.baseline { o += FuzzReport.baselineSentence(r, baseline: b) + "\n\n" }
        o += r.allContractsMet ? "**Every strategy met its contract.**\n\n" : "**Contract violated:** \(r.strategies.filter { !$0.metContract }.map(\.name).joined(separator: ", ")).\n\n"

        o += "## Strategy × invariant\n\n"
        o += "Each cell: runs violating / runs. ◆ = claimed by the strategy's contract; ❌ a claimed invariant violated (contract failure), ⚠️ violated but not claimed (expected of a known-bad strategy), ✅ claimed and held; ◇ = claimed only under a condition (stated in the cell; ❌ when violated while it held). First failing seed, shrunk length and the scenario link follow.\n\n"
        o += "| invariant | " + r.strategies.map { "\($0.name)\($0.knownBad ? " (known-bad)" : "")" }.joined(separator: " | ") + " |\n"
        o += "|---|" + r.strategies.map { _ in "---|" }.joined() + "\n"
        for inv in r.invariantColumns {
            o += "| `\(inv)`\(FuzzReport.isUserInvariant(inv) ? " (user)" : "") |"
            for s in r.strategies {
                // No cell: the strategy was not judged by this invariant ("not checked", as in HTML).
                guard let c = s.cells.first(where: { $0.invariant == inv }) else { o += " – |"; continue }
                let mark = c.breaksContract ? "❌" : c.violations > 0 ? "⚠️" : (c.claimed || c.condition != nil ? "✅" : "")
                var cell = " \(mark)\(c.claimed ? "◆" : c.condition != nil ? "◇" : "") \(c.violations)/\(s.runs)"
                if let cond = c.condition { cell += " (claimed \(cond): \(c.violationsUnderCondition ?? 0) violating)" }
                if let f = c.firstSeed { cell += " · seed \(f)" }
                if let n = c.shrunkActions {
                    cell += c.scenario.map { " · [\(n) actions](\($0))" } ?? " · \(n) actions"
                }
                o += cell + " |"
            }
            o += "\n"
        }
        o += "| **met contract** |" + r.strategies.map { " \($0.metContract ? "✅ yes" : "❌ **no**") |" }.joined() + "\n\n"
        // Only when there are some, so a report judged by the built-ins alone is unchanged.
        let users = r.userInvariants
        if !users.isEmpty {
            o += "*(user)*: a user invariant, defined by the tool that ran this fuzz and judged like the built-ins (claimed and violated fails the contract); – : the strategy was not judged by it:\n\n"
            o += "| user invariant | summary |\n|---|---|\n"
            for u in users { o += "| `\(u.id)` | \(cell(u.summary)) |\n" }
            o += "\n"
        }

        let rows = r.reachRows
        if !rows.isEmpty {
            o += "## Reach\n\n"
            o += "A claim that held proves little if no run reached the situation that tests it. Each cell: runs that reached it / runs (share); ◆ claimed; ⚠️ claimed but reached in under 1% of runs.\n\n"
            o += "| invariant | tested by | " + r.strategies.map(\.name).joined(separator: " | ") + " |\n"
            o += "|---|---|" + r.strategies.map { _ in "---|" }.joined() + "\n"
            for row in rows {
                o += "| `\(row.invariant)` | \(row.situation) |"
                for (s, c) in zip(r.strategies, row.cells) {
                    guard let c, let n = c.reachedRuns else { o += " – |"; continue }
                    let share = s.runs == 0 ? 0 : Double(n) / Double(s.runs) * 100
                    o += " \(c.isBarelyReached(runs: s.runs) ? "⚠️" : "")\(c.claimed ? "◆" : "") \(n)/\(s.runs) (\(format1(share))%) |"
                }
                o += "\n"
            }
            let barely = r.barelyReachedClaims
            o += barely.isEmpty ? "\nEvery claim with a reach goal was reached in at least 1% of runs.\n\n"
                : "\n**Claims barely tested** (situation reached in under 1% of runs): \(barely.joined(separator: "; ")).\n\n"
        }

        o += "## Metrics\n\n"
        o += "| strategy | arbitration | runs | converge median | converge p99 | messages / write | max pending | writes lost | stale overwrites | unsettled | events |\n"
        o += "|---|---|---|---|---|---|---|---|---|---|---|\n"
        for s in r.strategies {
            let m = s.metrics
            o += "| \(s.name) | \(s.arbitration) | \(s.runs) | \(m.convergeMedianMs.map { "\($0) ms" } ?? "–") | \(m.convergeP99Ms.map { "\($0) ms" } ?? "–") | \(m.messagesPerWrite) | \(m.maxPendingQueue) | \(m.writesLost) | \(m.staleOverwrites) | \(m.unsettledRuns) | \(m.events) |\n"
        }
        o += "\n*Converge*: virtual time from heal to settled. *Writes lost*: accepted writes never applied nor reported rejected. *Stale overwrites*: fields whose final value came from a write made before another applied write to the same field.\n\n"

        o += "## Schedule coverage\n\n"
        let c = r.coverage
        o += "\(c.runs) runs.\n\n| action | total | runs |\n|---|---|---|\n"
        for k in ActionKind.allCases { o += "| \(k.rawValue) | \(c.actions[k.rawValue] ?? 0) | \(c.runsWithAction[k.rawValue] ?? 0) |\n" }
        o += "\n| fault | runs |\n|---|---|\n"
        for f in FaultKind.allCases { o += "| \(f.rawValue) | \(c.runsWithFault[f.rawValue] ?? 0) |\n" }
        o += "\n| situation | runs reaching it |\n|---|---|\n"
        for s in Situation.allCases { o += "| \(s.rawValue) | \(c.runsReaching[s.rawValue] ?? 0) |\n" }
        o += c.neverReached.isEmpty ? "\nEvery action kind, fault and situation was reached.\n" : "\n**Never reached:** \(c.neverReached.joined(separator: "; ")).\n"
        o += coverageOverTime(r)

        if !r.failures.isEmpty {
            o += "\n## Failures (shrunk)\n\n"
            for f in r.failures {
                o += "### \(f.strategy) · `\(f.invariant)` · seed \(f.seed)\(f.claimed ? " · **contract violation**" : "")\n\n"
                o += "\(f.explanation)\n\n"
                if let n = f.shrunkActions {
                    o += "Shrunk from \(f.originalActions) to \(n) actions" + (f.scenario.map { ": [\($0)](\($0))" } ?? "")
                    o += f.shrinkStopped == true ? " (the time budget stopped shrinking: it still fails, but may not be minimal).\n\n" : ".\n\n"
                } else if f.shrinkStopped == true {
                    o += "**Left unshrunk:** the time budget ran out before it could be shrunk; the seed below reproduces it.\n\n"
                }
                o += "```sh\n\(f.replay)\n```\n\n"
                o += ExplanationSection.markdown(f.explain)
            }
        }
        o += "\n---\nTiming (not part of the reproducible report): started \(r.timing.startedAt), \(String(format1(r.timing.wallSeconds))) s wall, \(String(format1(r.timing.runsPerSecond))) runs/s, \(String(format1(r.timing.shrinkSeconds))) s shrinking.\n"
        return o
    }

    /// One line per strategy: when the last new situation and reach goal appeared, in seed order.
    static func coverageOverTime(_ r: FuzzReport) -> String {
        guard !r.strategies.isEmpty else { return "" }
        var o = "\n### Coverage over time\n\nRuns in seed order; report.html draws the curves.\(r.timelineScope.map { " " + $0 } ?? "")\n\n"
        for s in r.strategies {
            let t = r.timeline(of: s)
            o += "- **\(cell(s.name))**: \(t.situationSentence); \(t.reachGoalSentence)\(t.plateaued ? " — nothing new in the last half of the runs" : "").\n"
        }
        return o
    }

    /// User text as one table cell: a `|` would end the cell and raw HTML would render, so both
    /// are escaped (summaries are one line already).
    static func cell(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "|": out += "\\|"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "&": out += "&amp;"
            case "\n", "\r": out += " "
            default: out.append(c)
            }
        }
        return out
    }

    static func format1(_ x: Double) -> String {
        let v = (x * 10).rounded() / 10
        return String(v)
    }
}

import Foundation

/// Explains a failing scenario by counterfactual replays, as Hypothesis's explain phase does for
/// a minimal failing input: for each action, fault and initial entity, would the failure still
/// happen without it, with other values, at another time?
///
/// The questions, in the order they are asked (so a budget cut short still judged every action
/// before it refines any):
///  1. each action removed: still fails the same way → `free`;
///  2. each action the failure needs, moved alone in time (`TimeWindowSearch`): the window, and
///     `timing` when a time between its neighbours loses the failure, else `necessary`;
///  3. each parameter of each needed action given other values (`ParameterVariants`): free or
///     fixed parameters;
///  4. each initial entity removed (with the actions on it), then its field values varied;
///  5. each fault set in the options turned off (rates to 1 ppm, see `optionFaults`);
///  6. the point of no return (`PointOfNoReturnSearch`).
///
/// Deterministic: fixed questions in a fixed order, deterministic simulations, seeded suffixes.
/// "The same way" is `FailureSignature`: the same invariant on the same entity.
public struct Explainer: Sendable {
    public let strategy: AnyStrategy
    public let seed: UInt64
    public let budget: ExplainBudget

    public init(strategy: AnyStrategy, seed: UInt64, budget: ExplainBudget = ExplainBudget()) {
        self.strategy = strategy
        self.seed = seed
        self.budget = budget
    }

    /// Explains why `schedule` violates `invariant` (nil: its first violation). Throws
    /// `ExplainError` when the schedule does not fail that way, does not compile, or the stop
    /// came before the first run.
    public func explain(_ schedule: Schedule, invariant: InvariantID? = nil) throws -> Explanation {
        let strategy = self.strategy, seed = self.seed
        if budget.shouldStop() || (RunStop.current?.shouldStop() ?? false) { throw ExplainError.stoppedBeforeFirstRun }
        let first: RunResult
        do {
            first = try strategy.run(schedule, seed: seed)
        } catch {
            throw ExplainError.invalidSchedule("\(error)")
        }
        if first.interrupted { throw ExplainError.stoppedBeforeFirstRun }
        guard let violation = first.violations.first(where: { invariant == nil || $0.invariant == invariant }) else {
            throw ExplainError.doesNotFail(invariant: invariant?.rawValue, got: first.violatedInvariants.map(\.rawValue))
        }
        let signature = FailureSignature(violation)
        var cf = Counterfactuals(signature: signature, budget: budget) { s in
            guard let r = try? strategy.run(s, seed: seed) else { return (nil, false) }
            return (r.violations, r.interrupted)
        }
        let schema = schedule.schema
        let acts = schedule.actions

        // 1. Removal.
        var actions: [Explanation.ActionPart] = acts.enumerated().map { i, a in
            Explanation.ActionPart(index: i, at: a.at, action: Self.describe(a, schema: schema), fault: a.action.isFault,
                                   verdict: nil, freeParameters: [], fixedParameters: [], window: nil)
        }
        var needed: [Int] = []
        for i in acts.indices {
            var c = schedule
            c.actions.remove(at: i)
            guard let f = cf.failsSameWay(c) else { break }
            if f {
                actions[i].verdict = .free
                actions[i].freeParameters = ParameterVariants.of(acts[i].action, clients: schedule.options.clients, schema: schema).map(\.0)
            } else {
                needed.append(i)
            }
        }
        // 2. Windows.
        let horizon = schedule.lastActionTime + budget.horizonMs
        // Needed is necessary until the window says timing: if the budget ends the search, the
        // verdict stays the one removal proved.
        for i in needed { actions[i].verdict = .necessary }
        for i in needed {
            guard let w = TimeWindowSearch.window(schedule, i, horizon: horizon, &cf) else { break }
            actions[i].window = w
            actions[i].verdict = TimeWindowSearch.isTimingBound(w, schedule, i) ? .timing : .necessary
        }
        // 3. Parameters of the needed actions.
        params: for i in needed {
            for (name, alternatives) in ParameterVariants.of(acts[i].action, clients: schedule.options.clients, schema: schema) {
                var free = true
                for alt in alternatives {
                    var c = schedule
                    c.actions[i].action = alt
                    guard let f = cf.failsSameWay(c) else { break params }
                    if !f { free = false; break }
                }
                if free { actions[i].freeParameters.append(name) } else { actions[i].fixedParameters.append(name) }
            }
        }
        // 4. Initial data.
        var initial: [Explanation.InitialPart] = schedule.initial.enumerated().map { i, e in
            Explanation.InitialPart(index: i, entity: e.entity.raw, verdict: nil, freeParameters: [], fixedParameters: [])
        }
        initialLoop: for i in schedule.initial.indices {
            var kept = schedule.initial
            let removed = kept.remove(at: i).entity
            // Actions on the entity go with it: an entity only a free action touches is free.
            var without = Shrinker.withInitial(schedule, kept)
            without.actions.removeAll { $0.action.mentions(removed) }
            guard let gone = cf.failsSameWay(without) else { break }
            if gone {
                initial[i].verdict = .free
                initial[i].freeParameters = ParameterVariants.of(schedule.initial[i], schema: schema).map(\.0)
                continue
            }
            initial[i].verdict = .necessary
            for (name, alternatives) in ParameterVariants.of(schedule.initial[i], schema: schema) {
                var free = true
                for alt in alternatives {
                    var c = schedule
                    c.initial[i] = alt
                    guard let f = cf.failsSameWay(c) else { break initialLoop }
                    if !f { free = false; break }
                }
                if free { initial[i].freeParameters.append(name) } else { initial[i].fixedParameters.append(name) }
            }
        }
        // 5. Faults set in the options.
        var options: [Explanation.OptionPart] = []
        for (name, value, off) in Self.optionFaults(schedule.options) {
            var c = schedule
            off(&c.options)
            let f = cf.failsSameWay(c)
            options.append(Explanation.OptionPart(option: name, value: value, verdict: f.map { $0 ? .free : .necessary }))
        }
        // 6. Point of no return.
        var point: Explanation.PointOfNoReturn?
        var pointDone = budget.suffixes == 0
        if !cf.exhausted && budget.suffixes > 0 {
            (point, pointDone) = PointOfNoReturnSearch.search(schedule, seed: seed, suffixes: budget.suffixes, &cf)
        }
        let complete = !cf.exhausted && pointDone && actions.allSatisfy { $0.verdict != nil }
        var e = Explanation(strategy: strategy.name, seed: seed, invariant: violation.invariant.rawValue,
                            entity: violation.entity?.raw, violation: violation.description, actions: actions, initial: initial,
                            options: options, pointOfNoReturn: point, runs: cf.runs + 1, complete: complete, necessaryActions: [])
        e.necessaryActions = actions.filter { $0.verdict == .necessary || $0.verdict == .timing }.map(\.index)
        return e
    }

    /// The action as one line of scenario-file JSON (`{"at":1000,"client":"A","do":"update",…}`).
    static func describe(_ a: TimedAction, schema: Schema) -> String {
        let enc = JSONEncoder()
        enc.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = Schema.$describing.withValue(schema) { try? enc.encode(a) }
        return data.flatMap { String(data: $0, encoding: .utf8) } ?? "\(a.action.kind.rawValue) at \(a.at) ms"
    }

    /// The faults the options turn on, each with how to turn it off.
    ///
    /// Rates go down to 1 ppm rather than 0: the network draws a message's fate only while a rate
    /// is non-zero, so 0 would shift every later latency draw and the failure could vanish for
    /// that reason alone; at 1 ppm the draws stay the same and the fault (almost surely) never
    /// strikes. Latency jitter cannot be turned off without changing draws (a fixed latency draws
    /// nothing), so its verdict is coarser: every message's timing changes with it.
    static func optionFaults(_ o: SimulationOptions) -> [(String, String, (inout SimulationOptions) -> Void)] {
        var out: [(String, String, (inout SimulationOptions) -> Void)] = []
        func off(_ ppm: UInt32) -> UInt32 { ppm > 1 ? 1 : 0 }
        if o.dropPpm > 0 { out.append(("dropPpm", "\(o.dropPpm)", { $0.dropPpm = off($0.dropPpm) })) }
        if o.duplicatePpm > 0 { out.append(("duplicatePpm", "\(o.duplicatePpm)", { $0.duplicatePpm = off($0.duplicatePpm) })) }
        if o.delayPpm > 0 { out.append(("delayPpm", "\(o.delayPpm)", { $0.delayPpm = off($0.delayPpm) })) }
        if o.clockSkewMs.contains(where: { $0 != 0 }) {
            out.append(("clockSkewMs", "\(o.clockSkewMs)", { $0.clockSkewMs = [] }))
        }
        if o.latencyMaxMs > o.latencyMinMs {
            // Jitter: turned off by fixing the latency at its minimum.
            out.append(("latencyMaxMs", "\(o.latencyMaxMs) (latencyMinMs \(o.latencyMinMs))", { $0.latencyMaxMs = $0.latencyMinMs }))
        }
        if !o.persistence { out.append(("persistence", "false", { $0.persistence = true })) }
        return out
    }
}

/// A scenario that cannot be explained.
public enum ExplainError: Error, Equatable, CustomStringConvertible {
    /// The schedule does not violate the invariant (or nothing at all, without one).
    case doesNotFail(invariant: String?, got: [String])
    case invalidSchedule(String)
    /// The budget or a stop came before the first replay.
    case stoppedBeforeFirstRun

    public var description: String {
        switch self {
        case .doesNotFail(let inv, let got):
            let what = inv.map { "does not violate \($0)" } ?? "does not fail"
            return "the scenario \(what) under this strategy (violations: \(got.isEmpty ? "none" : got.joined(separator: ", "))): nothing to explain"
        case .invalidSchedule(let m): return "the schedule cannot run: \(m)"
        case .stoppedBeforeFirstRun: return "stopped before the first replay: nothing explained"
        }
    }
}

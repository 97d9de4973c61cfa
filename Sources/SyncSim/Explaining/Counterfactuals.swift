/// Runs counterfactual schedules within a budget and answers one question about each: does it
/// fail the same way?
///
/// Three answers, not two: a candidate that does not compile (an update moved before its
/// entity's create) does not fail the same way, it is simply not a world where the failure
/// happens; but a candidate the budget or a stop refused is *unknown*, and the explainer must
/// stop rather than count it as either.
struct Counterfactuals {
    /// Runs a schedule: its violations (nil when it does not compile) and whether the run was
    /// stopped half-way (`RunResult.interrupted`), which makes the answer unknown.
    let run: (Schedule) -> (violations: [Violation]?, interrupted: Bool)
    let signature: FailureSignature
    let budget: ExplainBudget
    private(set) var runs = 0
    /// The budget is spent or a stop was asked: every further answer is nil.
    private(set) var exhausted = false

    init(signature: FailureSignature, budget: ExplainBudget, run: @escaping (Schedule) -> (violations: [Violation]?, interrupted: Bool)) {
        self.signature = signature
        self.budget = budget
        self.run = run
    }

    /// True: fails the same way; false: does not (passes, fails otherwise, or is not a valid
    /// schedule); nil: not known (budget spent, stopped).
    mutating func failsSameWay(_ s: Schedule) -> Bool? {
        guard !exhausted else { return nil }
        guard runs < budget.maxRuns, !budget.shouldStop(), !(RunStop.current?.shouldStop() ?? false) else {
            exhausted = true
            return nil
        }
        runs += 1
        let r = run(s)
        if r.interrupted {
            exhausted = true
            return nil
        }
        guard let v = r.violations else { return false }
        return signature.matches(v)
    }
}

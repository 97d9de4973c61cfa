/// The parts of `fuzz`'s terminal summary that make a first run explain itself: the known
/// failures replayed, one line per strategy with its violations split into *claimed and
/// violated* and *not claimed, expected*, a legend saying what those mean, the command that
/// reproduces each contract violation (on standard output, as fast-check prints a failing seed
/// and path), and what coverage never reached.
///
/// Why split from `FuzzCommand`: each part is a pure function of the report, short and tested
/// on its own text, and the command only prints the lines in order.
enum FuzzSummary {
    /// What replaying the failure database found, and which failures are new (nothing without a
    /// database; one line when it was empty).
    static func knownFailures(_ db: FailureDatabaseReport?) -> [String] {
        guard let db else { return [] }
        var out: [String] = []
        if db.known.isEmpty {
            let saved = db.new.filter { $0.savedAs != nil }.count
            return ["known failures (\(db.folder)): none recorded" + (db.new.isEmpty ? "" : "; this run found \(db.new.count) "
                    + (saved > 0 ? "and saved \(saved) there" : "(--save-failures keeps them there)"))]
        }
        out.append("known failures (\(db.folder)): \(db.stillFailing.count) still failing, \(db.fixed.count) fixed"
                   + (db.regressed.isEmpty ? "" : ", \(db.regressed.count) regressed") + "; \(db.new.count) new"
                   + (db.stopped ? " (replays stopped early)" : ""))
        for k in db.known where k.status != .holds {
            let what: String
            switch k.status {
            case .stillFailing: what = "still failing" + (k.breaksContract ? " (CONTRACT)" : "")
            case .fixed: what = "FIXED: no longer violates \(k.expected); set its expectation to \"holds\" to keep it as a regression test"
            case .regressed: what = "REGRESSED: recorded as holding, now violates \(k.got.joined(separator: ", "))" + (k.breaksContract ? " (CONTRACT)" : "")
            case .holds: what = ""
            }
            out.append("  \(k.strategy) · \(k.expected) · \(k.file): \(what)")
        }
        for n in db.new.prefix(10) {
            out.append("  new: \(n.strategy) · \(n.invariant) · seed \(n.seed)\(n.claimed ? " (CONTRACT)" : "")"
                       + (n.savedAs.map { ", saved as \($0)" } ?? ""))
        }
        if db.new.count > 10 { out.append("  … and \(db.new.count - 10) more new (report.json: failureDatabase.new)") }
        return out
    }

    /// One line per strategy, then the legend when anything was violated.
    static func strategies(_ r: FuzzReport) -> [String] {
        var out: [String] = []
        var anyViolated = false
        for s in r.strategies {
            let claimed = s.cells.filter { $0.violations > 0 && $0.breaksContract }.map { "\($0.invariant) \($0.violations)" }
            let expected = s.cells.filter { $0.violations > 0 && !$0.breaksContract }.map { "\($0.invariant) \($0.violations)" }
            var groups: [String] = []
            if !claimed.isEmpty { groups.append("claimed and violated: " + claimed.joined(separator: ", ")) }
            if !expected.isEmpty { groups.append("not claimed, expected: " + expected.joined(separator: ", ")) }
            if !groups.isEmpty { anyViolated = true }
            out.append("  \(s.name.rightPad(15)) \(s.metContract ? "met its contract" : "CONTRACT VIOLATED: \(s.contractViolations.joined(separator: ", "))")"
                       + (groups.isEmpty ? "" : "   [\(groups.joined(separator: "; "))]"))
        }
        if anyViolated {
            out.append("  legend: 'invariant N' = N runs violated it. claimed and violated = the strategy promises it: a contract")
            out.append("  violation (exit 1). not claimed, expected = a weakness the strategy admits (known-bad): reported, not an error.")
        }
        return out
    }

    /// The command that reproduces each contract violation.
    static func contractViolations(_ r: FuzzReport) -> [String] {
        let broken = r.failures.filter { f in
            f.claimed || r.strategies.first { $0.name == f.strategy }?.contractViolations.contains(f.invariant) == true
        }
        guard !broken.isEmpty else { return [] }
        var out = ["contract violations — reproduce each (replay FILE --explain shows which actions matter):"]
        for f in broken {
            let size = f.shrunkActions.map { ", shrunk \(f.originalActions) → \($0) actions" } ?? ""
            let needs = f.explain.map { e in e.necessaryActions.isEmpty ? "" : "; needs actions " + e.necessaryActions.map { "#\($0 + 1)" }.joined(separator: ", ") } ?? ""
            out.append("  \(f.strategy) · \(f.invariant) · seed \(f.seed)\(size)\(needs)")
            out.append("    \(f.replay)")
        }
        return out
    }

    /// What no run reached, and claims reached too rarely to count as tested.
    static func coverage(_ r: FuzzReport) -> [String] {
        var out: [String] = []
        let never = r.coverage.neverReached
        out.append(never.isEmpty ? "coverage: every action kind, fault and situation was reached"
                                 : "never reached: \(never.joined(separator: ", ")) (claims they test went untested: see Reach in the report)")
        let barely = r.barelyReachedClaims
        if !barely.isEmpty { out.append("barely tested (situation in < 1% of runs): \(barely.joined(separator: ", "))") }
        return out
    }
}

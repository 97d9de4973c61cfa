/// The reach report shared by the Markdown and HTML renderers: per invariant with a reach goal,
/// per strategy, how many runs reached the situation that tests it.
extension FuzzReport {
    /// One row of the reach table: an invariant with a reach goal, and each strategy's cell
    /// (nil where the strategy was not judged by it).
    public struct ReachRow: Sendable {
        public var invariant: String
        public var situation: String
        public var cells: [Cell?]
    }

    /// Rows in column order, for invariants that have a reach goal.
    public var reachRows: [ReachRow] {
        invariantColumns.compactMap { inv in
            let cells = strategies.map { s in s.cells.first { $0.invariant == inv } }
            guard let goal = cells.lazy.compactMap({ $0?.reachSituation }).first else { return nil }
            return ReachRow(invariant: inv, situation: goal, cells: cells)
        }
    }

    /// `strategy · invariant` for every claim whose situation was reached in under 1% of runs:
    /// claims that held without being tested.
    public var barelyReachedClaims: [String] {
        strategies.flatMap { s in
            s.cells.filter { $0.isBarelyReached(runs: s.runs) }.map { "\(s.name) · \($0.invariant)" }
        }
    }
}

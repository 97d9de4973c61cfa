/// A user's invariant: an id, a one-line summary and an oracle that judges a finished run from
/// its public record (`RunHistory`). A peer of the built-ins: its violations join
/// `RunResult.violations`, strategies may claim it in their contract, and reports list it next to
/// the built-ins (`InvariantCatalog`).
///
/// ```swift
/// let id = try InvariantID(custom: "noForbiddenTitle")
/// let noForbiddenTitle = try CustomInvariant(id: id, summary: "no todo's title is ever 'forbidden'") { run in
///     run.applied.flatMap { a in
///         a.tx.ops.filter { $0.assignments.contains { $0.field == .title && $0.value == .string("forbidden") } }
///             .map { Violation(id, at: a.time, entity: $0.entity, "tx \(a.tx.txID) wrote it") }
///     }
/// }
/// let r = try Simulator.run(InstantStrategy(), schedule, seed: 1, invariants: [noForbiddenTitle])
/// ```
///
/// **When it runs.** Once, at the end of the run, after the built-in oracles: a custom oracle
/// sees the whole record, including the final states, and cannot influence the run. It is not
/// called when the run itself failed to start (an invalid schedule throws before any event).
///
/// **What it may report.** Only violations of its own invariant. A violation whose `invariant` is
/// another id — a built-in's or another user invariant's — is *relabelled* to this invariant's
/// id, and its explanation says which id the oracle used. Relabelling rather than dropping keeps
/// the finding visible (the oracle did see something) while making sure a user oracle can never
/// forge, or pile onto, a violation of an invariant it does not own: contracts over built-ins
/// are judged by the built-in oracles alone. Violations are also made printable (line breaks in
/// explanations become spaces; an empty explanation is marked; a `client` outside the run's
/// clients is dropped, with a note), sorted, and capped at `Monitor.perInvariantLimit` per run,
/// like the built-ins.
///
/// **Determinism.** The oracle must be a pure function of its input (no clock, no randomness,
/// no iteration over a `Set` or `Dictionary` into its output): the same run must always yield
/// the same violations. It must not trap: the harness cannot recover from a crash in user code.
public struct CustomInvariant: Sendable {
    /// Never a built-in's id (checked on creation).
    public let id: InvariantID
    /// One line, shown by `list invariants`, reports and JUnit next to the id.
    public let summary: String
    /// Longer text (may span lines, may be empty): what the invariant means and why it matters.
    public let documentation: String
    /// Whether the oracle reads `RunHistory.observations` (what each subscription showed at each
    /// yield). Recording them costs a query-result copy per yield, so the simulator records them
    /// only when some invariant of the run asks; otherwise `observations` is empty.
    public let needsObservations: Bool
    /// The judgement. Called once per run, after the built-in oracles.
    public let oracle: @Sendable (RunHistory) -> [Violation]

    /// Throws when `id` is malformed or a built-in's name, or `summary` is blank or spans lines.
    public init(_ id: String, summary: String, documentation: String = "", needsObservations: Bool = false,
                oracle: @escaping @Sendable (RunHistory) -> [Violation]) throws(InvariantError) {
        try self.init(id: InvariantID(custom: id), summary: summary, documentation: documentation,
                      needsObservations: needsObservations, oracle: oracle)
    }

    /// As `init(_:summary:documentation:needsObservations:oracle:)`, for an id already made;
    /// throws `.shadowsBuiltIn` when it is a built-in.
    public init(id: InvariantID, summary: String, documentation: String = "", needsObservations: Bool = false,
                oracle: @escaping @Sendable (RunHistory) -> [Violation]) throws(InvariantError) {
        if id.isBuiltIn { throw .shadowsBuiltIn(id.rawValue) }
        if summary.allSatisfy(\.isWhitespace) { throw .emptySummary(id) }
        if summary.contains(where: \.isNewline) { throw .multiLineSummary(id) }
        self.id = id
        self.summary = summary
        self.documentation = documentation
        self.needsObservations = needsObservations
        self.oracle = oracle
    }

    /// Runs the oracle on `run` and returns its violations as they join the run's result:
    /// relabelled to `id` where the oracle used another id, made printable, sorted and capped
    /// (see the type's documentation).
    public func check(_ run: RunHistory) -> [Violation] {
        var out: [Violation] = []
        for var v in oracle(run) {
            var notes: [String] = []
            if v.invariant != id {
                notes.append("[reported by the oracle as '\(v.invariant.rawValue)'; a user invariant reports only under its own id]")
                v.invariant = id
            }
            if let c = v.client, !(0..<run.clientCount).contains(c.index) {
                notes.append("[client index \(c.index) is not one of the run's \(run.clientCount) clients]")
                v.client = nil
            }
            var text = String(v.explanation.map { $0.isNewline ? " " : $0 })
            if text.allSatisfy(\.isWhitespace) { text = "(the oracle gave no explanation)" }
            v.explanation = notes.isEmpty ? text : notes.joined(separator: " ") + " " + text
            out.append(v)
        }
        out.sort()
        if out.count > Monitor.perInvariantLimit { out.removeLast(out.count - Monitor.perInvariantLimit) }
        return out
    }
}

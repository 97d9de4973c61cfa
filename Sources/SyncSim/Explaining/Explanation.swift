/// What counterfactual replays say about one failing scenario: for each action, fault and
/// initial entity, whether the failure needs it (and which of its parameters), whether it hangs
/// on its time, and the point of no return. `syncsim replay FILE --explain` prints it, reports
/// show it next to each shrunk failure's story, and `report.json` carries it (`Failure.explain`).
///
/// Why a separate value and not lines of text: the diagram highlights `necessaryActions`, tests
/// check verdicts on scenarios whose answer is known, and `--json` hands it to other tools.
/// Everything in it is a pure function of (strategy, schedule, seed, budget): the replays are
/// deterministic and the random suffixes come from a seeded `SimRandom`.
public struct Explanation: Codable, Hashable, Sendable {
    /// How much one part of the schedule matters to the failure.
    public enum Verdict: String, Codable, Hashable, Sendable {
        /// Without it (or with it changed) the failure disappears, wherever it sits between its
        /// neighbours: what matters is that it happens, and in this order.
        case necessary
        /// It can go, and the failure stays the same way (the same invariant, the same entity):
        /// any other value of its parameters does too, so a reader can skip it.
        case free
        /// The failure needs it, and needs it within `window`: moved earlier or later while no
        /// other action is passed, the failure disappears. It races with messages in flight.
        case timing
    }

    /// A span of virtual time, in ms, both ends included.
    public struct Window: Codable, Hashable, Sendable {
        public var from: Int64
        /// Nil: the failure stays up to the end of the probed range (`probedUpTo`), so the window
        /// is open-ended as far as the replays can tell.
        public var to: Int64?
        /// The latest time tried.
        public var probedUpTo: Int64

        public init(from: Int64, to: Int64?, probedUpTo: Int64) {
            self.from = from
            self.to = to
            self.probedUpTo = probedUpTo
        }

        /// `101…1049 ms` or `101 ms…end`.
        public var text: String { "\(from)…" + (to.map { "\($0) ms" } ?? "end (probed to \(probedUpTo) ms)") }
    }

    /// One action of the schedule (index as in the scenario file's `actions`).
    public struct ActionPart: Codable, Hashable, Sendable {
        public var index: Int
        public var at: Int64
        /// The action as the scenario file writes it (one line of JSON), so a reader finds it.
        public var action: String
        /// True for faults and lifecycle actions (offline, online, unreachable, restart, crash).
        public var fault: Bool
        /// Nil when the budget ran out before this action was judged. When it ran out during the
        /// window search, `necessary` (removal proved it) without a window: not refined to timing.
        public var verdict: Verdict?
        /// Parameters (scenario-file keys: `client`, `set.bio`, `text`, …) for which every other
        /// value tried fails the same way; for a `free` action (it can go altogether), all of
        /// its parameters, without trying values.
        public var freeParameters: [String]
        /// Parameters for which some other value makes the failure disappear (or fail otherwise).
        public var fixedParameters: [String]
        /// Times at which the failure stays, found by moving this action alone (nil: not needed,
        /// or not judged).
        public var window: Window?
    }

    /// An entity the server holds before the run (index as in `initial`).
    public struct InitialPart: Codable, Hashable, Sendable {
        public var index: Int
        public var entity: UInt32
        public var verdict: Verdict?
        public var freeParameters: [String]
        public var fixedParameters: [String]
    }

    /// A fault set in the options rather than as an action: message drops, duplicates, delays,
    /// clock skew, latency jitter, persistence off. Judged by turning it off.
    public struct OptionPart: Codable, Hashable, Sendable {
        /// The option as the scenario file names it (`dropPpm`, `clockSkewMs`, …).
        public var option: String
        public var value: String
        /// `necessary` (turned off, the failure disappears) or `free`.
        public var verdict: Verdict?
    }

    /// The earliest prefix after which the failure happens whatever the rest does.
    public struct PointOfNoReturn: Codable, Hashable, Sendable {
        /// Actions kept: after `actions[afterActions - 1]` the failure is certain (0: the initial
        /// data alone makes it certain).
        public var afterActions: Int
        /// Time of the last kept action (nil when none is kept).
        public var at: Int64?
        /// Random suffixes tried at each prefix (the empty suffix, that is healing at once,
        /// included); every one of them failed the same way at this prefix.
        public var suffixes: Int
    }

    public var strategy: String
    public var seed: UInt64
    public var invariant: String
    /// The entity the failure is about, when the violation names one: "the same way" means the
    /// same invariant on this entity.
    public var entity: UInt32?
    /// The violation being explained (first of `invariant` in the original replay).
    public var violation: String
    public var actions: [ActionPart]
    public var initial: [InitialPart]
    public var options: [OptionPart]
    /// Nil when no prefix made the failure certain (random suffixes could still avert it after
    /// the last action), or when the budget ran out first.
    public var pointOfNoReturn: PointOfNoReturn?
    /// Simulations run.
    public var runs: Int
    /// False when the run budget or a stop (time budget, Ctrl-C) ended the replays early: parts
    /// without a verdict were not judged, and the point of no return may be missing.
    public var complete: Bool

    /// Indices (into the schedule's actions) of the actions the failure needs: `necessary` and
    /// `timing`, ascending. What the sequence diagram highlights; stored so `report.json` has it.
    public var necessaryActions: [Int]
}

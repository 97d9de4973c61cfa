extension SequenceDiagram {
    /// What a diagram says about the failure beyond the trace: the violated invariant and its
    /// explanation (written on the violation marker, not hidden in a tooltip), the transaction the
    /// violation names (the culprit, highlighted with the writes it carried), and the actions an
    /// explanation found necessary (ringed). Every part is optional: without notes the diagram
    /// is the trace alone.
    public struct Notes: Sendable, Hashable {
        public var invariant: String?
        public var explanation: String?
        /// The culprit transaction's id; by default the first `tx N` the explanation names
        /// (`… deleted todo#7 (tx 2 from client A) …`), nil when it names none.
        public var culpritTx: Int?
        /// Actions to highlight as necessary to the failure (from counterfactual replays).
        public var necessaryActions: [ActionMark]

        public init(invariant: String? = nil, explanation: String? = nil, culpritTx: Int?? = nil, necessaryActions: [ActionMark] = []) {
            self.invariant = invariant
            self.explanation = explanation
            self.culpritTx = culpritTx ?? explanation.flatMap { MessageSummary(text: $0, kind: "").tx }
            self.necessaryActions = necessaryActions
        }
    }

    /// One action of the schedule, located on the diagram: the trace lines of an action carry
    /// no index, so a mark names the action's index (shown as `#index`), its time, its client
    /// lane (nil: the server, for back-office writes) and, when known, the label of the line its
    /// step writes (`user`, `admin write`, `offline`, `restart`, `fault armed`, …) and which of
    /// the steps with that label at that time on that lane it is (0 for the first). Without those
    /// two, every action line at that time on that lane is highlighted. A typing burst gives one
    /// mark per keystroke.
    public struct ActionMark: Codable, Sendable, Hashable {
        public var index: Int
        public var at: Int64
        public var client: Int?
        public var line: String?
        public var ordinal: Int?
        public init(index: Int, at: Int64, client: Int?, line: String? = nil, ordinal: Int? = nil) {
            self.index = index
            self.at = at
            self.client = client
            self.line = line
            self.ordinal = ordinal
        }

        /// Whether the trace line at `ordinal` among the lines with its (time, lane, label) is
        /// this action's.
        func matches(_ l: TraceLine, ordinal n: Int) -> Bool {
            at == l.time && client == l.client && (line == nil || line == l.label) && (ordinal == nil || ordinal == n)
        }
    }

    /// The label of the trace line a step writes first (what `ActionMark.line` matches).
    static func lineLabel(of step: CompiledSchedule.Step) -> String {
        switch step {
        case .boot: return "launch"
        case .user, .bulk: return "user"
        case .admin: return "admin write"
        case .offline: return "offline"
        case .online: return "online"
        case .unreachable: return "unreachable"
        case .reachable: return "reachable"
        case .restart: return "restart"
        case .crash: return "fault armed"
        case .switchTenant: return "switch tenant"
        case .logout: return "logout"
        }
    }

    /// Marks for the actions at `indices` (into `schedule.actions`, as a scenario file numbers
    /// them), located through the compiled schedule so that each keystroke of a typing burst is
    /// found at its own time. Empty when the schedule does not compile.
    public static func actionMarks(_ indices: [Int], in schedule: Schedule) -> [ActionMark] {
        guard !indices.isEmpty, let compiled = try? schedule.compile() else { return [] }
        let wanted = Set(indices)
        var marks: [ActionMark] = []
        var seen: [String: Int] = [:]  // steps so far per (time, lane, label): the ordinal of the next
        for e in compiled.entries {
            let client: Int?
            switch e.step {
            case .boot(let c), .user(let c, _), .offline(let c), .online(let c), .unreachable(let c), .reachable(let c),
                 .restart(let c), .crash(let c, _), .bulk(let c, _), .switchTenant(let c, _), .logout(let c):
                client = c.index
            case .admin: client = nil
            }
            let label = lineLabel(of: e.step)
            let key = "\(e.time)|\(client ?? -1)|\(label)"
            let ordinal = seen[key, default: 0]
            seen[key] = ordinal + 1
            guard let i = e.source, wanted.contains(i) else { continue }
            marks.append(ActionMark(index: i, at: e.time, client: client, line: label, ordinal: ordinal))
        }
        return marks
    }
}

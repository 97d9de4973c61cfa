/// What replaying the failure database found, and which of this run's failures are new: the
/// part of `report.json` (`failureDatabase`) and of the terminal summary a CI log shows first.
public struct FailureDatabaseReport: Codable, Hashable, Sendable {
    /// A known outcome replayed again.
    public struct Known: Codable, Hashable, Sendable {
        public enum Status: String, Codable, Hashable, Sendable {
            /// Recorded as failing, and fails the same invariant again.
            case stillFailing
            /// Recorded as failing, and no longer violates it (the file's expectation is now
            /// wrong: update it to "holds" to keep it as a regression test).
            case fixed
            /// Recorded as holding, and still holds.
            case holds
            /// Recorded as holding, and now violates something.
            case regressed
        }
        public var file: String
        public var strategy: String
        /// The recorded expectation: an invariant id or "holds".
        public var expected: String
        public var status: Status
        /// The invariants the replay violated, in catalog order.
        public var got: [String]
        /// Whether a `stillFailing` or `regressed` outcome breaks the strategy's contract (the
        /// strategy claims an invariant it violated in this replay): the run then exits 1.
        public var breaksContract: Bool
        public var replay: String
    }

    /// A failure this run's seeds found that no still-failing database entry records.
    public struct New: Codable, Hashable, Sendable {
        public var strategy: String
        public var invariant: String
        public var seed: UInt64
        public var claimed: Bool
        /// Where it was saved (`--save-failures`), or nil.
        public var savedAs: String?
    }

    public var folder: String
    public var known: [Known]
    public var new: [New]
    /// True when the replays were cut short (time budget, Ctrl-C): `known` is a prefix.
    public var stopped: Bool

    public var stillFailing: [Known] { known.filter { $0.status == .stillFailing } }
    public var fixed: [Known] { known.filter { $0.status == .fixed } }
    public var regressed: [Known] { known.filter { $0.status == .regressed } }
    public var breaksContract: Bool { known.contains(where: \.breaksContract) }
}

/// Thresholds of the modelled systems that an ordinary schedule never reaches, drawn per seed.
///
/// Measured before this existed: over 65,000 runs the pending queue peaked at 74 writes, so the
/// 200-write cap of `conflictPrompt`, `pushPull` and `reference` was never hit and every
/// `queueCapNoSilentDrop` claim was vacuous; offline windows lasted at most 5 s of virtual time,
/// far below the systems' timeouts and cleanup ages (instant's 30 s, seed 000). A share of seeds
/// therefore draws, by default and without the user asking, from a stream of their own:
///
/// - a **small queue cap** (2…15 writes; one seed in four),
/// - an **offline burst**: one client offline for 20 s to 3 min of virtual time, making 30 to 250
///   writes meanwhile (one seed in five),
/// - a **long run**: four times the configured number of actions (one seed in ten),
/// - **faults at protocol points** (FoundationDB's BUGGIFY): one to three `crash` actions armed
///   at random moments on random clients, each at one of the `CrashPoint`s (one seed in four).
///
/// The draws come from their own forked stream and change nothing when none is drawn, so a seed
/// without stress names the same schedule it always did (and so do schedules with swarm off,
/// which never draw stress).
public struct Stress: Sendable, Hashable {
    /// The forked stream the stress draws come from (part of the reproducibility contract).
    static let streamLabel: UInt64 = 0x7374_7265_7373

    public struct OfflineBurst: Sendable, Hashable {
        /// The burst starts once the schedule has this many actions.
        public var afterActions: Int
        public var windowMs: Int64
        public var writes: Int
    }

    /// A protocol-point fault to arm once the schedule has `afterActions` actions.
    public struct ProtocolFault: Sendable, Hashable {
        public var afterActions: Int
        /// Drawn as an index; taken modulo the client count when emitted.
        public var client: Int
        public var point: CrashPoint
    }

    public var queueCap: Int?
    public var offlineBurst: OfflineBurst?
    public var longRun = false
    /// In the order they are armed.
    public var protocolFaults: [ProtocolFault] = []

    public init() {}

    /// The number of generated actions for a configured count.
    public func actions(_ configured: Int) -> Int {
        guard longRun else { return configured }
        let (x, overflow) = configured.multipliedReportingOverflow(by: 4)
        return overflow ? configured : x
    }

    static func draw(_ r: inout SimRandom, actions: Int) -> Stress {
        var s = Stress()
        // Draw every value unconditionally, in a fixed order, so one knob's draw never shifts another's.
        let capOn = r.below(4) == 0
        let cap = 2 + Int(r.below(14))
        let burstOn = r.below(5) == 0
        let after = actions > 0 ? Int(r.below(UInt64(actions))) : 0
        let window = 20_000 + Int64(r.below(160_001))
        let writes = 30 + Int(r.below(221))
        let longOn = r.below(10) == 0
        // Protocol-point faults: drawn after every earlier knob, so adding them moved none.
        let faultsOn = r.below(4) == 0
        let faultCount = 1 + Int(r.below(3))
        var faults: [ProtocolFault] = []
        for _ in 0..<3 {
            let f = ProtocolFault(afterActions: actions > 0 ? Int(r.below(UInt64(actions))) : 0, client: Int(r.below(8)),
                                  point: CrashPoint.allCases[Int(r.below(UInt64(CrashPoint.allCases.count)))])
            faults.append(f)
        }
        if faultsOn { s.protocolFaults = Array(faults.prefix(faultCount)).sorted { $0.afterActions < $1.afterActions } }
        if capOn { s.queueCap = cap }
        if burstOn { s.offlineBurst = OfflineBurst(afterActions: after, windowMs: window, writes: writes) }
        s.longRun = longOn
        return s
    }
}

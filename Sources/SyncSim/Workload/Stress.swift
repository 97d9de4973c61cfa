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
/// - a **long run**: four times the configured number of actions (one seed in ten).
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

    public var queueCap: Int?
    public var offlineBurst: OfflineBurst?
    public var longRun = false

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
        if capOn { s.queueCap = cap }
        if burstOn { s.offlineBurst = OfflineBurst(afterActions: after, windowMs: window, writes: writes) }
        s.longRun = longOn
        return s
    }
}

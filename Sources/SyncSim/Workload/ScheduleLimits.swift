/// The ranges every schedule must respect, checked by `Schedule.compile()` before a run starts.
///
/// Why hard limits: a schedule is input (a scenario file, a hand-written test), and the
/// simulator adds times (`now + latency`, `at + k × everyMs`, `now + skew`), multiplies timeouts
/// and sizes tables by what a schedule names. With every time, duration and count inside these
/// ranges no sum or product can overflow `Int64` (virtual time stays below 2⁵³ even after
/// `maxEvents` events each `maxDurationMs` long), a run ends within `maxEvents` events whatever
/// a file says, and expansions (typing bursts) stay linear in the file's size. The ranges are
/// wide enough for every generated schedule (`--actions` up to 100,000) and every file in
/// `Scenarios/`; they are documented in `Scenarios/README.md`.
public enum ScheduleLimits {
    /// Action times (and a typing burst's last keystroke): 0 … 1 day of virtual time.
    public static let times: ClosedRange<Int64> = 0...86_400_000
    /// Durations of the network and the user (latency, extra delay, think time): 0 … 1 hour.
    public static let durations: ClosedRange<Int64> = 0...3_600_000
    /// Timeouts that re-arm themselves (connect timeout, disconnect notice): 1 ms … 1 hour.
    /// Zero would make a timer fire at the same instant forever.
    public static let timeouts: ClosedRange<Int64> = 1...3_600_000
    /// Periodic intervals and send timeouts of strategies: 1 s … 1 day. A shorter period
    /// spends the event budget on timers instead of the scenario (measured: a 100 ms sync
    /// interval over a day of virtual time is 2,000,000 timer events).
    public static let intervals: ClosedRange<Int64> = 1_000...86_400_000
    /// `sharedDiff`'s save delay: 0 … 60 s (a one-shot timer per change; zero saves at once).
    public static let saveDelays: ClosedRange<Int64> = 0...60_000
    /// Per-client clock skew: at most a day either way.
    public static let skews: ClosedRange<Int64> = -86_400_000...86_400_000
    /// The settle window after heal: 1 s … 1 day.
    public static let settleLimits: ClosedRange<Int64> = 1_000...86_400_000
    /// The bound on delivered events, which cannot be switched off: at most 2,000,000 (the
    /// default). A small bound is allowed: it ends a run early as a liveness failure, never a hang.
    public static let maxEvents: ClosedRange<Int> = 1...2_000_000
    /// The pending-queue cap of strategies that have one.
    public static let queueCaps: ClosedRange<Int> = 1...100_000
    /// Entities one `bulkCreate` makes: 1 … 10,000 (seed 004's "Large batch (10k items)").
    /// Each is a write the simulator hands to the client, so the bound keeps a bulk linear and
    /// small next to `maxEvents`.
    public static let bulkCounts: ClosedRange<Int> = 1...10_000
    /// `pushPull`'s push batch and pull page sizes (rows): 1 … 100,000. The defaults are the
    /// upper bound, larger than any run's rows, so a run that does not set them pushes one batch
    /// and pulls one page, as before they existed; seed 004 says 100 and 1,000.
    public static let syncBatchSizes: ClosedRange<Int> = 1...100_000
    /// Rates in parts per million.
    public static let ppm: ClosedRange<UInt32> = 0...1_000_000
    /// Clients: `A` … `Z`.
    public static let clients: ClosedRange<Int> = 1...26
    /// Keystrokes gap of a typing burst: 0 … 1 minute.
    public static let typingGaps: ClosedRange<Int64> = 0...60_000
    /// Characters in a typing burst: each keystroke writes the prefix typed so far, so a burst
    /// costs the square of its length; 256 keeps that a constant per action.
    public static let maxTypedCharacters = 256
    /// Entity ids: 0 … 999,999. Stores are indexed by id, so an id costs memory in every store
    /// that holds it; files with sparse ids are renumbered (see `Scenario`), generated ones are
    /// dense, and every generated schedule stays far below this bound.
    public static let entityIDs: ClosedRange<UInt32> = 0...999_999
    /// A string value (`set`, `where`): at most 4 KiB of UTF-8; it is copied into every store
    /// and message that holds it.
    public static let maxStringBytes = 4_096
    /// Integer field values: JSON's exactly representable integers, so a value survives any tool.
    public static let intValues: ClosedRange<Int> = -9_007_199_254_740_991...9_007_199_254_740_991
    /// Tenants: 0 … 15. Each tenant in use costs a server instance and, per client, a durable
    /// store (`Tenancy.databasePerTenant`), so the id bounds those tables.
    public static let maxTenant = 15

    /// `"expected 0…86400000, got -5"`: the range in the message, always.
    static func outOfRange<T: BinaryInteger>(_ what: String, _ v: T, _ r: ClosedRange<T>, unit: String = "") -> String {
        "expected \(what) in \(r.lowerBound)…\(r.upperBound)\(unit), got \(v)"
    }
}

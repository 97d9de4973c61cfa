/// The ranges every value of a history file must lie in, so that no input can trap, hang or
/// size a table: the oracles keep dense tables by entity id and write id, so an id of four
/// billion would otherwise ask for gigabytes. The same spirit as `ScheduleLimits` (whose entity
/// ids, string sizes and integer values apply here too).
public enum HistoryLimits {
    /// The longest line read (1 MiB). A longer line is an error, found without reading it whole.
    public static let maxLineBytes = 1 << 20
    /// The most lines a history may have. The checker keeps what the oracles keep — intents,
    /// the server's log, what users were told — about 100 bytes per event (a synthetic
    /// million-event history peaks at ~125 MiB), so this bounds it near 1 GB.
    public static let maxLines = 10_000_000
    /// Times in milliseconds: wall-clock epoch milliseconds fit, with room (up to 2^53).
    public static let times: ClosedRange<Int64> = 0...9_007_199_254_740_991
    /// A device's clock (`clientTime`): may run behind the collector's, so below zero too.
    public static let clientTimes: ClosedRange<Int64> = -9_007_199_254_740_991...9_007_199_254_740_991
    /// Write ids: the oracles index tables by write id, so they must be small and dense enough.
    public static let writeIDs: ClosedRange<Int64> = 0...4_194_303
    /// Subscription, query-request and conflict ids.
    public static let smallIDs: ClosedRange<Int64> = 0...4_294_967_295
    /// Transaction ids and sequence numbers.
    public static let txIDs: ClosedRange<Int64> = 0...Int64.max
    /// Operations in one write or transaction, records in one result, ids in one list.
    public static let maxListCount = 100_000
    /// Subscriptions a client may hold open at once.
    public static let maxOpenSubscriptions = 10_000
    /// Entity ids, as in scenario files.
    public static var entityIDs: ClosedRange<UInt32> { ScheduleLimits.entityIDs }
    /// Clients, as in simulations (named `A`…`Z`).
    public static var clients: ClosedRange<Int> { ScheduleLimits.clients }
    /// Skews a header may declare, as in simulations.
    public static var skews: ClosedRange<Int64> { ScheduleLimits.skews }
}

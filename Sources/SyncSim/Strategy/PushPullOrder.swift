/// The order of `pushPull`'s sync loop, a strategy option (`StrategyOptions.pushPullOrder`,
/// `"pushPullOrder"` in a scenario file's options).
///
/// WatermelonDB's `synchronize()` pulls first, then pushes, and its backend refuses a push of
/// a row changed after the client's `lastPulledAt` (the client pulls again and retries). Seed
/// 004 §2.1 pushes the operation queue first, then pulls and merges, detecting conflicts on the
/// client while merging (`mergeRecords` → `detectConflict` → `ConflictStore`). The default is
/// WatermelonDB's, so the traces of runs that do not set the option did not change when the
/// option was added.
public enum PushPullOrder: String, Hashable, Sendable, Codable, CaseIterable {
    /// WatermelonDB: pull, apply (a locally changed row keeps its changed columns), push, mark
    /// synced; the server refuses the whole push if a pushed row changed after `lastPulledAt`.
    case pullThenPush
    /// Seed 004 §2.1: push, clear the successful queue rows, pull, merge with seed 004 §5.2's
    /// `detectConflict` on every locally changed row (server `updatedAt` newer → server wins
    /// without a prompt; local newer → the local row is kept for the next push; equal with different
    /// data → the user chooses). The server judges each pushed row by `updatedAt` and never
    /// refuses a whole push.
    case pushThenPull
}

extension PushPullOrder {
    /// A scenario file's `"pushPullOrder"`: an unknown value is an error naming the accepted ones.
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        guard let v = PushPullOrder(rawValue: s) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown order '\(JSONText.clipped(s))'; expected one of: \(Self.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        self = v
    }
}

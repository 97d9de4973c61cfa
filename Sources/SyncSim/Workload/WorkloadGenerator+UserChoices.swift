/// The user choices the generator draws only when `WorkloadGenerator.Config.userChoices` asks:
/// seed 003's "merge" answer to a conflict prompt and its "drop oldest" action on a full queue
/// (seed 004 §5.3 names merge too). Drawn from their own stream after every other action, so a
/// seed's other actions and options stay what they were.
extension WorkloadGenerator.Builder {
    /// The stream label of these draws.
    static let userChoicesStream: UInt64 = 0x6368_6f69

    /// One seed in three answers every prompt with `merge`; one to two "drop oldest" taps at
    /// times within the schedule, on drawn clients, merged after the actions already at the same
    /// time (the tap comes when the user looks at a full queue; on an empty one it does nothing).
    mutating func addUserChoices(seed: UInt64) {
        var s = SimRandom(seed: seed).fork(.custom(Self.userChoicesStream))
        if s.below(3) == 0 { options.conflictPolicy = .merge }
        let end = actions.last?.at ?? 0
        var taps: [TimedAction] = []
        for _ in 0..<(1 + Int(s.below(2))) {
            taps.append(TimedAction(at: Int64(s.below(UInt64(end + 1))), .dropOldestWrite(ClientID(Int(s.below(UInt64(clients)))))))
        }
        mergeDrawn(taps)
    }
}

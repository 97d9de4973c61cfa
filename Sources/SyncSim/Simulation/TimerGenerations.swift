/// The generation of each armed timer of one machine (a client or a server), by timer id: what
/// tells a firing from a stale one (`Simulator.clientTimerGen`, `serverTimerGen`).
///
/// Why not a dictionary (as before): the simulator reads or writes it at every timer set, cancel
/// and firing, and strategies name their timers with a few small ids, so a hash per access was
/// a visible share of a short run (dictionary lookups were ~1% of the bench sweep). Small ids
/// map to a slot of a flat array; any other id (a user strategy may use any `UInt32`) falls back
/// to a dictionary, so every input is a value, never a crash. Only looked up, never iterated: no
/// order can leak.
@usableFromInline
struct TimerGenerations: Sendable {
    /// Slot `id.raw`: 0 when unarmed, else the generation with bit 32 set (so generation 0, after
    /// the run-wide counter wraps, is still told from "unarmed").
    @usableFromInline var dense: [UInt64] = []
    @usableFromInline var sparse: [TimerID: UInt32] = [:]
    /// Timer ids below this use `dense`.
    @inlinable static var denseIDs: UInt32 { 64 }

    @inlinable init() {}

    @inlinable
    subscript(id: TimerID) -> UInt32? {
        get {
            guard id.raw < Self.denseIDs else { return sparse[id] }
            let i = Int(id.raw)
            guard i < dense.count else { return nil }
            let v = dense[i]
            return v == 0 ? nil : UInt32(truncatingIfNeeded: v)
        }
        set {
            guard id.raw < Self.denseIDs else { sparse[id] = newValue; return }
            let i = Int(id.raw)
            if i >= dense.count {
                guard newValue != nil else { return }
                dense.append(contentsOf: repeatElement(0, count: i + 1 - dense.count))
            }
            dense[i] = newValue.map { UInt64($0) | 1 << 32 } ?? 0
        }
    }

    /// Disarms every timer (a relaunch voids the old incarnation's), keeping the slots' storage.
    @inlinable
    mutating func removeAll() {
        for i in dense.indices { dense[i] = 0 }
        if !sparse.isEmpty { sparse = [:] }
    }
}

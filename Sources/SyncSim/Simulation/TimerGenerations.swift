/// The generation of each armed timer of one machine (a client or a server), by timer id: what
/// tells a firing from a stale one (`Simulator.clientTimerGen`, `serverTimerGen`).
///
/// Why not a dictionary (as before): the simulator reads or writes it at every timer set, cancel
/// and firing, and a hash per access was a visible share of a short run (dictionary lookups
/// were ~1% of the bench sweep). A machine has few timers armed at once, but their ids are
/// anything (strategies number them from a counter, or tag high bits), so the armed ones are
/// kept as a short list of pairs searched from the end, and only past `listLimit` armed at once
/// do the rest go to a dictionary, so a long list never makes each access cost its length. Only
/// looked up, never iterated: no order can leak.
@usableFromInline
struct TimerGenerations: Sendable {
    /// Armed timers (id, generation), in no particular order; ids are unique across `list` and
    /// `overflow`.
    @usableFromInline var list: [(id: UInt32, gen: UInt32)] = []
    @usableFromInline var overflow: [TimerID: UInt32] = [:]
    /// The most timers `list` holds.
    @inlinable static var listLimit: Int { 16 }

    @inlinable init() {}

    @inlinable func place(_ id: TimerID) -> Int? {
        var i = list.count
        while i > 0 {
            i -= 1
            if list[i].id == id.raw { return i }
        }
        return nil
    }

    @inlinable
    subscript(id: TimerID) -> UInt32? {
        get {
            if let i = place(id) { return list[i].gen }
            return overflow.isEmpty ? nil : overflow[id]
        }
        set {
            if let i = place(id) {
                if let g = newValue {
                    list[i].gen = g
                } else {
                    list.swapAt(i, list.count - 1)
                    list.removeLast()
                }
            } else if !overflow.isEmpty && overflow[id] != nil {
                overflow[id] = newValue
            } else if let g = newValue {
                if list.count < Self.listLimit { list.append((id.raw, g)) } else { overflow[id] = g }
            }
        }
    }

    /// Disarms every timer (a relaunch voids the old incarnation's), keeping the list's storage.
    @inlinable
    mutating func removeAll() {
        list.removeAll(keepingCapacity: true)
        if !overflow.isEmpty { overflow = [:] }
    }
}

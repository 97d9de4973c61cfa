/// The generation of each armed timer of one machine (a client or a server), by timer id: what
/// tells a firing from a stale one (`Simulator.clientTimerGen`, `serverTimerGen`).
///
/// Why not a dictionary (as before): the simulator reads or writes it at every timer set, cancel
/// and firing, and `Dictionary`'s seeded hashing of each key was a visible share of a short run
/// (~1% of the bench sweep). Why not a short list: strategies number timers from a counter and
/// the InstantDB client keeps one send timeout armed per queued mutation, so dozens can be armed
/// at once and a scan costs their number. So: an open-addressing table of (id, generation)
/// slots, linear probing from a Fibonacci hash of the id, deletion by shifting the probe run
/// back (no tombstones, so probes stay short however many timers come and go), grown at half
/// full. Only looked up, never iterated: no order can leak.
@usableFromInline
struct TimerGenerations: Sendable {
    @usableFromInline
    struct Slot: Sendable {
        @usableFromInline var id: UInt32
        @usableFromInline var gen: UInt32
        @usableFromInline var used: Bool
        @inlinable init(id: UInt32, gen: UInt32, used: Bool) { self.id = id; self.gen = gen; self.used = used }
        @inlinable static var empty: Slot { Slot(id: 0, gen: 0, used: false) }
    }

    /// The slots: empty until the first timer is armed, then a power of two of them.
    @usableFromInline var slots: [Slot] = []
    /// Armed timers.
    @usableFromInline var count = 0
    /// `32 - log2(slots.count)`: the hash keeps the top bits of the product.
    @usableFromInline var shift: UInt32 = 32

    @inlinable init() {}

    @inlinable var isEmpty: Bool { count == 0 }

    @inlinable func home(_ id: UInt32) -> Int { Int((id &* 0x9E37_79B1) >> shift) }

    /// The slot holding `id`, or nil.
    @inlinable func place(_ id: UInt32) -> Int? {
        if count == 0 { return nil }
        let mask = slots.count - 1
        var i = home(id)
        while slots[i].used {
            if slots[i].id == id { return i }
            i = (i + 1) & mask
        }
        return nil
    }

    @inlinable
    subscript(id: TimerID) -> UInt32? {
        get {
            guard let i = place(id.raw) else { return nil }
            return slots[i].gen
        }
        set {
            if let i = place(id.raw) {
                if let g = newValue { slots[i].gen = g } else { remove(at: i) }
            } else if let g = newValue {
                insertNew(id.raw, g)
            }
        }
    }

    @inlinable
    mutating func insertNew(_ id: UInt32, _ gen: UInt32) {
        if (count + 1) * 2 > slots.count { grow() }
        let mask = slots.count - 1
        var i = home(id)
        while slots[i].used { i = (i + 1) & mask }
        slots[i] = Slot(id: id, gen: gen, used: true)
        count += 1
    }

    @inlinable
    mutating func grow() {
        let old = slots
        let size = Swift.max(16, old.count * 2)
        slots = Array(repeating: .empty, count: size)
        shift = UInt32(32 - (size.trailingZeroBitCount))
        count = 0
        for s in old where s.used { insertNew(s.id, s.gen) }
    }

    /// Empties slot `i` and shifts back the rest of its probe run, so every armed timer stays
    /// reachable from its home slot without passing an empty slot.
    @inlinable
    mutating func remove(at i: Int) {
        let mask = slots.count - 1
        var hole = i
        var j = (i + 1) & mask
        while slots[j].used {
            let h = home(slots[j].id)
            // Slot j may move into the hole if its home is not cyclically in (hole, j].
            let fits = hole <= j ? (h <= hole || h > j) : (h <= hole && h > j)
            if fits {
                slots[hole] = slots[j]
                hole = j
            }
            j = (j + 1) & mask
        }
        slots[hole] = .empty
        count -= 1
    }

    /// Disarms every timer (a relaunch voids the old incarnation's), keeping the storage.
    @inlinable
    mutating func removeAll() {
        if count == 0 { return }
        for i in slots.indices { slots[i] = .empty }
        count = 0
    }
}

/// A priority queue of events ordered by (time, insertion sequence) and nothing else.
///
/// Ties at the same virtual instant run in the order they were scheduled (as NIO's
/// `EmbeddedEventLoop` does), so ordering never depends on payloads or hashing.
///
/// The heap holds only plain keys (time, sequence, slot); payloads sit still in a slot table and
/// are moved in once on `push` and out once on `pop`, so sifting never copies (or retains) them.
public struct EventQueue<Payload> {
    @usableFromInline
    struct Key {
        @usableFromInline var time: Int64
        @usableFromInline var seq: UInt64
        @usableFromInline var slot: Int
        @inlinable init(time: Int64, seq: UInt64, slot: Int) { self.time = time; self.seq = seq; self.slot = slot }
        @inlinable @inline(__always) func before(_ o: Key) -> Bool {
            time < o.time || (time == o.time && seq < o.seq)
        }
    }

    @usableFromInline var heap: [Key] = []
    @usableFromInline var slots: [Payload?] = []
    @usableFromInline var free: [Int] = []
    /// Storage for `nextSeq` (an internal setter of a public property cannot be `@usableFromInline`).
    @usableFromInline var _nextSeq: UInt64 = 0
    @inlinable public var nextSeq: UInt64 { _nextSeq }

    @inlinable
    public init() {
        heap.reserveCapacity(256)
        slots.reserveCapacity(256)
        free.reserveCapacity(256)
    }

    /// Makes room for `n` events at once (the simulator pushes every step of the schedule
    /// before the run starts: growing the heap step by step copied it a dozen times per run).
    @inlinable
    public mutating func reserveCapacity(_ n: Int) {
        heap.reserveCapacity(n)
        slots.reserveCapacity(n)
        free.reserveCapacity(n)
    }

    @inlinable public var count: Int { heap.count }
    @inlinable public var isEmpty: Bool { heap.isEmpty }
    @inlinable public var nextTime: Int64? { heap.first?.time }

    @inlinable
    public mutating func push(at time: Int64, _ payload: Payload) {
        let slot: Int
        if let s = free.popLast() {
            slot = s
            slots[s] = payload
        } else {
            slot = slots.count
            slots.append(payload)
        }
        let key = Key(time: time, seq: _nextSeq, slot: slot)
        _nextSeq &+= 1
        heap.append(key)
        // Sift up with a hole: move parents down, write the new key once.
        heap.withUnsafeMutableBufferPointer { h in
            var i = h.count - 1
            while i > 0 {
                let p = (i - 1) >> 1
                if key.before(h[p]) { h[i] = h[p]; i = p } else { break }
            }
            h[i] = key
        }
    }

    @inlinable
    public mutating func pop() -> (time: Int64, payload: Payload)? {
        guard let top = heap.first else { return nil }
        let last = heap.removeLast()
        if !heap.isEmpty {
            // Sift down with a hole from the root.
            heap.withUnsafeMutableBufferPointer { h in
                let n = h.count
                var i = 0
                while true {
                    let l = 2 * i + 1
                    if l >= n { break }
                    var m = l
                    let r = l + 1
                    if r < n && h[r].before(h[l]) { m = r }
                    if h[m].before(last) { h[i] = h[m]; i = m } else { break }
                }
                h[i] = last
            }
        }
        var payload: Payload? = nil
        swap(&payload, &slots[top.slot])
        free.append(top.slot)
        return (top.time, payload!)
    }
}

/// Values parked under a small integer handle until taken back (slots are reused).
@usableFromInline
struct SlotTable<T> {
    @usableFromInline var items: [T?] = []
    @usableFromInline var free: [Int32] = []

    @inlinable init() {}

    @inlinable @inline(__always)
    mutating func put(_ x: T) -> Int32 {
        if let i = free.popLast() {
            items[Int(i)] = x
            return i
        }
        items.append(x)
        return Int32(items.count - 1)
    }

    @inlinable @inline(__always)
    mutating func take(_ i: Int32) -> T {
        var x: T? = nil
        swap(&x, &items[Int(i)])
        free.append(i)
        return x!
    }
}

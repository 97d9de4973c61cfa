/// A priority queue of events ordered by (time, insertion sequence) and nothing else.
///
/// Ties at the same virtual instant run in the order they were scheduled (as NIO's
/// `EmbeddedEventLoop` does), so ordering never depends on payloads or hashing.
public struct EventQueue<Payload> {
    struct Entry {
        var time: Int64
        var seq: UInt64
        var payload: Payload
        @inline(__always) func before(_ o: Entry) -> Bool {
            time < o.time || (time == o.time && seq < o.seq)
        }
    }

    var heap: [Entry] = []
    public internal(set) var nextSeq: UInt64 = 0

    public init() { heap.reserveCapacity(256) }

    public var count: Int { heap.count }
    public var isEmpty: Bool { heap.isEmpty }
    public var nextTime: Int64? { heap.first?.time }

    
    public mutating func push(at time: Int64, _ payload: Payload) {
        heap.append(Entry(time: time, seq: nextSeq, payload: payload))
        nextSeq &+= 1
        var i = heap.count - 1
        while i > 0 {
            let p = (i - 1) >> 1
            if heap[i].before(heap[p]) { heap.swapAt(i, p); i = p } else { break }
        }
    }

    
    public mutating func pop() -> (time: Int64, payload: Payload)? {
        guard !heap.isEmpty else { return nil }
        let top = heap[0]
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            var i = 0
            let n = heap.count
            while true {
                let l = 2 * i + 1
                if l >= n { break }
                var m = l
                let r = l + 1
                if r < n && heap[r].before(heap[l]) { m = r }
                if heap[m].before(heap[i]) { heap.swapAt(i, m); i = m } else { break }
            }
        }
        return (top.time, top.payload)
    }
}

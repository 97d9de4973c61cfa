/// The last transaction of the server's log that assigned each (entity, field), and whether one
/// of that transaction's intents targeted the field: what `Monitor.finishFieldOrder` says of a
/// register it found wrong (the culprit, and disjointFieldMerge rather than lwwConvergence when
/// the transaction overwrote the field while its writes were about other fields).
///
/// Why asked per register, not tabulated: only wrong registers need it, and they are few (none
/// in a run that passes). The table took a pass over every step of the log with the keys of
/// every intent it carried, most of the check's cost where a strategy re-sends whole
/// collections (sharedDiff: about 4,200 instructions per event at 3,000 actions, seed 1). A
/// question reads the log backwards to the last transaction that assigns the field. Past
/// `questionsBeforeTable` questions the table is built after all, once, so a run full of wrong
/// registers stays linear in the log. Both ways give the same answers (tests compare them).
struct LastAssignment {
    typealias Answer = (tx: Int32, targeted: Bool)
    private let stride: Int
    private var table: KeyTable<Answer>?
    private var questions = 0

    /// The most registers asked about by reading the log backwards before the table is built.
    static let questionsBeforeTable = 8

    /// `stride`: the schema's field count (`KeyTable`'s layout).
    init(stride: Int) { self.stride = stride }

    /// The position in `h.applied` of the last transaction that assigned `f` of `e` (-1: none),
    /// and whether one of its intents assigns it.
    mutating func of(_ e: EntityID, _ f: FieldID, in h: History) -> Answer {
        if table == nil {
            questions += 1
            if questions <= Self.questionsBeforeTable { return Self.scan(e, f, in: h) }
            table = Self.tabulate(h, stride: stride)
        }
        return table![Monitor.key(e, f)]
    }

    /// One question, reading the log backwards (steps and intents read in place).
    static func scan(_ e: EntityID, _ f: FieldID, in h: History) -> Answer {
        h.applied.withUnsafeBufferPointer { ap in
            h.intents.withUnsafeBufferPointer { ip in
                var i = ap.count - 1
                while i >= 0 {
                    if Monitor.assigns(ap[i].tx.ops, e, f) {
                        let targeted = ap[i].tx.writes.contains { w in
                            h.intentPosition(w).map { Monitor.assigns(ip[$0].write.ops, e, f) } ?? false
                        }
                        return (Int32(i), targeted)
                    }
                    i -= 1
                }
                return (-1, false)
            }
        }
    }

    /// Every register's answer in one pass forwards.
    static func tabulate(_ h: History, stride: Int) -> KeyTable<Answer> {
        var table = KeyTable<Answer>(stride: stride, blank: (-1, false))
        // The keys a transaction's intents assign: usually a few (a list beats hashing), but a
        // strategy that re-sends whole collections carries hundreds, so from `sortedMinimum`
        // on the list is sorted and searched by halves (a search in a row was quadratic).
        var targeted: [UInt64] = []
        h.applied.withUnsafeBufferPointer { ap in
            h.intents.withUnsafeBufferPointer { ip in
                for i in 0..<ap.count {
                    targeted.removeAll(keepingCapacity: true)
                    for w in ap[i].tx.writes {
                        if let p = h.intentPosition(w) {
                            Monitor.forEachAssignment(ip[p].write.ops) { e, x in targeted.append(Monitor.key(e, x.field)) }
                        }
                    }
                    let sorted = targeted.count >= sortedMinimum
                    if sorted { targeted.sort() }
                    Monitor.forEachAssignment(ap[i].tx.ops) { e, x in
                        let k = Monitor.key(e, x.field)
                        table[k] = (Int32(i), sorted ? Self.sortedContains(targeted, k) : targeted.contains(k))
                    }
                }
            }
        }
        return table
    }

    /// The fewest keys `tabulate` sorts and searches by halves rather than in a row.
    static let sortedMinimum = 16

    static func sortedContains(_ a: [UInt64], _ k: UInt64) -> Bool {
        a.withUnsafeBufferPointer { b in
            var lo = 0, hi = b.count
            while lo < hi {
                let mid = (lo &+ hi) >> 1
                if b[mid] < k { lo = mid &+ 1 } else { hi = mid }
            }
            return lo < b.count && b[lo] == k
        }
    }
}

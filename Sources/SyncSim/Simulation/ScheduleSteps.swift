/// The steps of a compiled schedule in the order a run takes them: by time, and at the same time
/// in the order `compile` listed them. The simulator merges this list with its event queue
/// (`Simulator.nextEvent`), a step going first at a tie.
///
/// Why not in the event queue, as before: every step of the schedule was pushed into the heap
/// before the run began, so the heap held the whole schedule (a thousand and more entries in
/// a 200-action run) and every pop of every event sifted through all its levels; the events
/// the run schedules itself (messages, timers) are a few dozen at a time. The steps are known
/// in advance and almost sorted already (only typing bursts, expanded into later keystrokes,
/// run out of order), so an insertion sort orders them in a pass plus their few inversions, and
/// the run reads them with a cursor. The order is exactly the heap's: it ordered by (time,
/// insertion sequence), and the steps were inserted first, in list order, so a step's
/// sequence number was its index and below every other event's.
@usableFromInline
struct ScheduleSteps: Sendable {
    /// Indices into `CompiledSchedule.entries`, in run order, and their times alongside.
    @usableFromInline var order: [Int] = []
    @usableFromInline var times: [Int64] = []
    /// The next step to run.
    @usableFromInline var cursor = 0

    @inlinable init() {}

    /// The steps of `entries` ordered by (time, index).
    @usableFromInline init(_ entries: [CompiledSchedule.Entry]) {
        let n = entries.count
        order.reserveCapacity(n)
        times.reserveCapacity(n)
        entries.withUnsafeBufferPointer { b in
            for i in 0..<n {
                let t = b[i].time
                // Insert after every step with a time not after `t` (all of them have a smaller
                // index): a step already in order costs one comparison.
                var k = order.count
                order.append(i)
                times.append(t)
                while k > 0 && times[k - 1] > t {
                    times[k] = times[k - 1]
                    order[k] = order[k - 1]
                    k -= 1
                }
                times[k] = t
                order[k] = i
            }
        }
    }

    /// The next step (its index in the entries and its time), nil when every step has run.
    @inlinable @inline(__always)
    func peek() -> (Int, Int64)? {
        cursor < order.count ? (order[cursor], times[cursor]) : nil
    }

    @inlinable @inline(__always)
    mutating func advance() { cursor += 1 }
}

/// Finds the times at which a failure stays when one action is moved and nothing else changes.
///
/// From the action's time it steps outwards by 1, 2, 4, … ms (earlier down to 0, later up to the
/// horizon) until the failure disappears, then bisects to the millisecond between the last time
/// that failed and the first that did not. Why galloping and not a scan: a window of ten seconds
/// costs about 28 runs a side instead of ten thousand. The window is the contiguous span around
/// the action's own time; a failure that comes back further out is not looked for.
enum TimeWindowSearch {
    /// The schedule with action `i` at time `t`, placed among the others by time: moved later,
    /// after every action at or before `t`; moved earlier, before every action at or after `t`.
    static func moving(_ s: Schedule, _ i: Int, to t: Int64) -> Schedule {
        var c = s
        var a = c.actions.remove(at: i)
        let old = a.at
        a.at = t
        let pos = t >= old ? (c.actions.firstIndex { $0.at > t } ?? c.actions.count)
                           : (c.actions.firstIndex { $0.at >= t } ?? c.actions.count)
        c.actions.insert(a, at: pos)
        return c
    }

    /// The window of action `i`, or nil when the budget ran out.
    static func window(_ s: Schedule, _ i: Int, horizon: Int64, _ cf: inout Counterfactuals) -> Explanation.Window? {
        let t = s.actions[i].at
        let top = max(t, horizon)
        // Later.
        var good = t, bad: Int64? = nil, step: Int64 = 1
        while good < top {
            let probe = min(t + step, top)
            guard let f = cf.failsSameWay(moving(s, i, to: probe)) else { return nil }
            if f { good = probe } else { bad = probe; break }
            step *= 2
        }
        if var b = bad {
            while b - good > 1 {
                let mid = good + (b - good) / 2
                guard let f = cf.failsSameWay(moving(s, i, to: mid)) else { return nil }
                if f { good = mid } else { b = mid }
            }
        }
        let hi: Int64? = bad == nil ? nil : good
        // Earlier.
        var low = t, lowBad: Int64? = nil
        step = 1
        while low > 0 {
            let probe = max(t - step, 0)
            guard let f = cf.failsSameWay(moving(s, i, to: probe)) else { return nil }
            if f { low = probe } else { lowBad = probe; break }
            step *= 2
        }
        if var b = lowBad {
            while low - b > 1 {
                let mid = b + (low - b) / 2
                guard let f = cf.failsSameWay(moving(s, i, to: mid)) else { return nil }
                if f { low = mid } else { b = mid }
            }
        }
        return Explanation.Window(from: low, to: hi, probedUpTo: top)
    }

    /// Whether the window is cut short by time alone: at the first time just outside it, the
    /// moved action has the same place among the others as at the window's edge, so only the
    /// clock changed and the failure went. Such an action races with something in flight. An
    /// edge where it passes another action is an ordering constraint instead, which `necessary`
    /// covers.
    static func isTimingBound(_ w: Explanation.Window, _ s: Schedule, _ i: Int) -> Bool {
        if w.from > 0, place(s, i, at: w.from) == place(s, i, at: w.from - 1) { return true }
        if let to = w.to, place(s, i, at: to) == place(s, i, at: to + 1) { return true }
        return false
    }

    /// How many other actions come before action `i` when it is moved to `t` (as `moving` places
    /// it); the others keep their order, so this count is its place among them.
    static func place(_ s: Schedule, _ i: Int, at t: Int64) -> Int {
        let old = s.actions[i].at
        if t == old { return i }
        return s.actions.indices.filter { j in j != i && (t > old ? s.actions[j].at <= t : s.actions[j].at < t) }.count
    }
}

/// A subscription's second copy of its result's entries, one patch behind the result it shows,
/// so that a patch writes into a buffer nobody else holds.
///
/// Why: a result a client shows is also held by the monitor (the entries of the subscription's
/// last yield, which it diffs the next yield against). Patching the shown result in place
/// (`ViewPatch`) therefore first copied every entry (copy on write: a retain per array of every
/// record), and the monitor's release of the older buffer at the next yield freed every entry
/// again: two passes over the result per yield, the largest part of the `reference` and
/// `pushPull` clients' cost per event that grew with the data. The buffer of the result shown
/// before the current one is no longer held by the monitor once it has seen the current one;
/// bringing it up to date at the few entries the last patch changed makes it equal to the shown
/// result, and the next patch is applied to it, in place.
///
/// Exactness: `entries` equals the shown result's entries except, at most, at the entities in
/// `lag` (what the patch that made the shown result changed, `ViewPatch`'s `changedAt`), so
/// `take(matching:)` returns entries equal to the shown result's, whatever the reference
/// counts. A buffer still shared is copied by Swift on the first write, as before: never wrong,
/// only slower.
struct ResultSpare: Sendable {
    /// The entries of an earlier result of the subscription; nil when there is none that is
    /// known to differ only at `lag`.
    var entries: [QueryResult.Entry]?
    /// The entities at which `entries` may differ from the shown result's (repeats allowed).
    var lag: [EntityID] = []

    init() {}

    /// Sets `work` to a result with `shown`'s roots and entries whose entries buffer is this
    /// spare brought up to date (uniquely held, unless something else kept it) and returns true;
    /// false, leaving `work` alone, without a spare. The spare is emptied: the caller hands the
    /// shown result's entries back through `keep`. (An inout, not a returned value: a result
    /// still bound to a name when the patch writes into it would be copied.)
    mutating func take(matching shown: QueryResult, into work: inout QueryResult) -> Bool {
        guard var e = entries else { return false }
        entries = nil
        var ids: [EntityID] = []
        swap(&ids, &lag)
        ids.sort()
        let cur = shown.entries
        var last: EntityID?
        for id in ids where id != last {
            last = id
            let k = ViewPatch.lowerBound(e.count) { e[$0].id < id }
            let has = k < e.count && e[k].id == id
            let j = ViewPatch.lowerBound(cur.count) { cur[$0].id < id }
            if j < cur.count && cur[j].id == id {
                if has { e[k].record = cur[j].record } else { e.insert(cur[j], at: k) }
            } else if has {
                e.remove(at: k)
            }
        }
        // The tests run debug builds: a spare that does not match is caught there.
        assert(e == cur, "ResultSpare out of step with the shown result")
        work = QueryResult(roots: shown.roots, entries: e)
        return true
    }

    /// Keeps `entries` (those of the result shown until now) as the spare, differing from the
    /// result now shown at most at `lag`.
    mutating func keep(_ entries: [QueryResult.Entry], lag: [EntityID]) {
        self.entries = entries
        self.lag = lag
    }

    /// Forgets the spare (the shown result was replaced by an evaluation: no `lag` is known).
    mutating func drop() {
        entries = nil
        lag = []
    }
}

/// A client's subscriptions grouped by query: one result per distinct query, kept up to date once
/// and shown by every subscription to that query.
///
/// Why: the `pushPull` and `reference` clients show each subscription their query over one local
/// view, so two subscriptions to the same query always show equal results. The workload
/// subscribes to a handful of queries many times over (a long run holds a dozen subscriptions
/// per client to four or five queries, and a relaunch subscribes to all of them again), and each
/// subscription's result was patched, or evaluated over the whole view after a crash, on its
/// own: the same work several times per event, growing with the run. Grouped, a change of the
/// view is brought into each distinct query's result once, and the subscriptions share its
/// storage (a copy of a value: what each one shows is unchanged).
///
/// Exactness: a group's `result` is what each of its shown subscriptions showed before grouping
/// (the query over the view as of the client's last refresh); a subscription joining a group
/// shows the group's result, which is its query's result over the view at that moment. Order:
/// `subs` stays ascending by id, so yields go out in the order they always did.
struct SubscriptionGroups: Sendable {
    struct Subscription: Sendable {
        var id: SubscriptionID
        /// Index of its group in `groups`.
        var group: Int
        /// Whether it has shown its group's result (a yield went out for it).
        var shown: Bool
    }

    struct Group: Sendable {
        var query: Query
        /// The query's result over the view as of the last refresh; nil before the first
        /// evaluation (or while the group has no subscription).
        var result: QueryResult?
        /// `query.readNamespaces(in: schema)`, kept: asked after every change of the view.
        var reads: NamespaceSet
        /// Subscriptions in this group (0: a free slot).
        var members: Int
        /// Whether the last refresh changed `result` (its subscriptions yield).
        var changed = false
    }

    /// Ascending by id.
    private(set) var subs: [Subscription] = []
    /// Slots with `members == 0` are free and reused.
    var groups: [Group] = []

    init() {}

    /// The place of `s` in `subs`, by binary search (`subs` ascends by id), reading the ids in
    /// place. `result(of:)` is asked at every yield (the monitor reads what each subscription
    /// shows), and a long run holds a dozen or more subscriptions per client.
    @inline(__always) func place(of s: SubscriptionID) -> Int? {
        subs.withUnsafeBufferPointer { b in
            var lo = 0, hi = b.count
            while lo < hi {
                let m = (lo + hi) >> 1
                if b[m].id < s { lo = m + 1 } else { hi = m }
            }
            return lo < b.count && b[lo].id == s ? lo : nil
        }
    }

    /// The group of `s`, if it is subscribed.
    func group(of s: SubscriptionID) -> Int? {
        place(of: s).map { subs[$0].group }
    }

    /// What `s` shows: its group's result once a yield went out for it.
    func result(of s: SubscriptionID) -> QueryResult? {
        guard let i = place(of: s) else { return nil }
        let (shown, g) = subs.withUnsafeBufferPointer { b in (b[i].shown, b[i].group) }
        return shown ? groups[g].result : nil
    }

    /// Subscribes `s` to `q` (replacing an earlier subscription with that id), not yet shown, in
    /// the group of `q` (a new one if no subscription has `q`). Returns the group's index.
    mutating func subscribe(_ s: SubscriptionID, to q: Query, schema: Schema) -> Int {
        unsubscribe(s)
        let g: Int
        if let k = groups.firstIndex(where: { $0.members > 0 && $0.query == q }) {
            g = k
        } else {
            let fresh = Group(query: q, result: nil, reads: q.readNamespaces(in: schema), members: 0)
            if let k = groups.firstIndex(where: { $0.members == 0 }) {
                groups[k] = fresh
                g = k
            } else {
                groups.append(fresh)
                g = groups.count - 1
            }
        }
        groups[g].members += 1
        let i = subs.firstIndex { $0.id > s } ?? subs.count
        subs.insert(Subscription(id: s, group: g, shown: false), at: i)
        return g
    }

    mutating func unsubscribe(_ s: SubscriptionID) {
        guard let i = place(of: s) else { return }
        let g = subs.remove(at: i).group
        groups[g].members -= 1
        if groups[g].members == 0 {
            groups[g].result = nil
            groups[g].changed = false
        }
    }

    /// Marks `s` shown.
    mutating func markShown(_ s: SubscriptionID) {
        if let i = place(of: s) { subs[i].shown = true }
    }

    /// The subscriptions that yield after a refresh (in id order): those not shown yet whose
    /// group has a result, and those whose group's result changed; marks them shown.
    mutating func takeYields(_ body: (SubscriptionID) -> Void) {
        for i in subs.indices {
            let g = subs[i].group
            guard groups[g].result != nil, groups[g].changed || !subs[i].shown else { continue }
            subs[i].shown = true
            body(subs[i].id)
        }
    }
}

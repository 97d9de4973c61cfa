/// The earliest prefix of a schedule after which the failure happens whatever the rest does,
/// as Antithesis plots the chance of a bug along a run.
///
/// For k = 0, 1, … it keeps the first k actions and replaces the rest by continuations: none
/// (heal at once), then seeded random ones (`SuffixGenerator`). The first k at which every
/// continuation fails the same way is the point of no return. Cheap in practice: before that
/// point the empty continuation usually already passes, one run per prefix. A continuation that
/// does not compile is drawn again (a few times) and never counted as a pass.
enum PointOfNoReturnSearch {
    /// (the point, true) or (nil, true) when none was found; (nil, false) when the budget ran out.
    static func search(_ s: Schedule, seed: UInt64, suffixes: Int, _ cf: inout Counterfactuals)
        -> (Explanation.PointOfNoReturn?, Bool) {
        for k in 0...s.actions.count {
            var gen = SuffixGenerator(seed: seed, prefixLength: k, schema: s.schema, clients: s.options.clients)
            var bare = s
            bare.actions = Array(s.actions.prefix(k))
            guard let f0 = cf.failsSameWay(bare) else { return (nil, false) }
            guard f0 else { continue }
            var allFail = true
            var tried = 1
            var attempts = 0
            while tried < suffixes && attempts < suffixes * 4 {
                attempts += 1
                let c = gen.continuation(of: s, length: k)
                guard (try? c.compile()) != nil else { continue }
                tried += 1
                guard let f = cf.failsSameWay(c) else { return (nil, false) }
                if !f { allFail = false; break }
            }
            if allFail {
                return (Explanation.PointOfNoReturn(afterActions: k, at: k > 0 ? s.actions[k - 1].at : nil, suffixes: tried), true)
            }
        }
        return (nil, true)
    }
}

/// `lwwConvergence` (and `disjointFieldMerge`) widened to links: a link is a register judged by
/// the same arbitration rules as a field (`mayWin`), from the users' intents and the server's log.
///
/// Why: a link is data the user edits like a field (which profile a post is by), and the bugs
/// that lose field edits lose link edits too: a stale full-entity save re-asserting an old
/// link, a replayed link landing over a newer one, a timestamp order that lets an older link
/// win. Before this oracle no link edit was judged at all.
///
/// Registers:
///  - a cardinality-one link of an entity: `link(e, l, t)` sets it to `t`. Its final target must
///    be the target of a write that may win among the links that took effect. It may be empty
///    instead when an unlink of it may win among links and unlinks together (an unlink clears
///    only the target it names, so its effect depends on the order of arrival: the oracle
///    accepts either outcome rather than guess it), or when the winner's target or the entity
///    itself was deleted on the server at some point (a delete clears the links to and from it).
///  - each (entity, has-many link, target): `link` makes it present and `unlink` absent (an
///    observed-remove set); the final presence must be what a winner says, and absence is also
///    fine when the target or the entity was deleted on the server.
/// Registers no write targeted, and links from entities the server no longer has, are not
/// judged (`linkIntegrity` judges dangling targets). A wrong final value that the last
/// transaction touching the register did not target (a whole-entity save re-asserting a stale
/// link) is a `disjointFieldMerge` violation, as for fields; otherwise `lwwConvergence`.
extension Monitor {
    /// A link register's key: (entity, link) for cardinality one, (entity, link, target) for many.
    @inline(__always) static func linkKey(_ e: EntityID, _ l: LinkID) -> UInt64 { UInt64(e.raw) << 8 | UInt64(l.raw) }
    @inline(__always) static func linkKey(_ e: EntityID, _ l: LinkID, _ t: EntityID) -> UInt64 { linkKey(e, l) << 32 | UInt64(t.raw) }

    struct TxKey: Hashable { var tx: Int32; var key: UInt64 }
    /// A write competing for a link register: the op's target and whether it links or unlinks.
    struct LinkContender { var c: Contender; var target: EntityID; var isLink: Bool }

    /// `records`: the record winners under `.recordTimestamp` (a register is then judged by the
    /// winning row, `Monitor+RecordOrder.swift`), nil under the register-level rules.
    /// `lww` false: only disjointFieldMerge is reported (the per-register pass under `.recordTimestamp`).
    mutating func finishLinkOrder<O: ObservedSystem>(_ sim: O, data: EntityStore, records: RecordWinners? = nil, lww: Bool = true, at t: Int64) {
        guard schema.linkCount > 0 else { return }
        let h = sim.history
        let arbitration = sim.arbitration
        func regKey(_ e: EntityID, _ l: LinkID, _ x: EntityID) -> UInt64 { schema.isMany(l) ? Self.linkKey(e, l, x) : Self.linkKey(e, l) }
        // Contenders per register: (intent, last tx carrying it, the op's target, link or unlink).
        var contenders: [UInt64: [LinkContender]] = [:]
        var manyKeys: [UInt64] = []
        // The intents, the log and their steps are read in place (a `for` over them copied each
        // intent, transaction and step: a retain and a release per array they own).
        h.intents.withUnsafeBufferPointer { ip in
            for i in 0..<ip.count {
                guard let tx = Self.get(lastApplied, ip[i].write.id) else { continue }
                ip[i].write.ops.withUnsafeBufferPointer { ob in
                    for j in 0..<ob.count {
                        let e: EntityID, l: LinkID, target: EntityID, isLink: Bool
                        switch ob[j] {
                        case .link(let a, let b, let c): (e, l, target, isLink) = (a, b, c, true)
                        case .unlink(let a, let b, let c): (e, l, target, isLink) = (a, b, c, false)
                        default: continue
                        }
                        guard schema.contains(l) else { continue }
                        let k = regKey(e, l, target)
                        if schema.isMany(l) && contenders[k] == nil { manyKeys.append(k) }
                        contenders[k, default: []].append(LinkContender(c: Contender(intent: Int32(i), tx: tx), target: target, isLink: isLink))
                    }
                }
            }
        }
        guard !contenders.isEmpty else { return }
        // For registers some write targeted: the last transaction that changed each, whether it
        // carried an intent that targeted it, and which (transaction, register) pairs the log
        // shows a link step for (a write carried by a transaction whose step on the register did
        // not take effect does not compete).
        var lastTouch: [UInt64: (tx: Int, targeted: Bool)] = [:]
        var stepped = Set<TxKey>()
        h.applied.withUnsafeBufferPointer { ap in
            h.intents.withUnsafeBufferPointer { ip in
                for i in 0..<ap.count {
                    var targeted: [UInt64]? = nil
                    ap[i].tx.ops.withUnsafeBufferPointer { ob in
                        for j in 0..<ob.count {
                            switch ob[j] {
                            case .link(let e, let l, let x), .unlink(let e, let l, let x):
                                guard schema.contains(l) else { continue }
                                let k = regKey(e, l, x)
                                guard contenders[k] != nil else { continue }
                                if targeted == nil {
                                    var ks: [UInt64] = []
                                    for w in ap[i].tx.writes {
                                        guard let p = h.intentPosition(w) else { continue }
                                        ip[p].write.ops.withUnsafeBufferPointer { wb in
                                            for m in 0..<wb.count {
                                                switch wb[m] {
                                                case .link(let e, let l, let x), .unlink(let e, let l, let x):
                                                    if schema.contains(l) { ks.append(regKey(e, l, x)) }
                                                default: continue
                                                }
                                            }
                                        }
                                    }
                                    targeted = ks
                                }
                                lastTouch[k] = (i, targeted!.contains(k))
                                stepped.insert(TxKey(tx: Int32(i), key: k))
                            default: continue
                            }
                        }
                    }
                }
            }
        }
        for k in contenders.keys.sorted() {
            contenders[k]!.removeAll { !stepped.contains(TxKey(tx: $0.c.tx, key: k)) }
            if contenders[k]!.isEmpty { contenders[k] = nil }
        }
        let maxSkew = max(0, (0..<sim.clientCount).map { sim.skew(of: ClientID($0)) }.max() ?? 0)
        func skew(_ o: Origin) -> Int64 { if case .client(let c) = o { return sim.skew(of: c) } else { return 0 } }
        func wins(_ cs: [LinkContender]) -> [Bool] {
            mayWin(cs.map(\.c), key: nil, h, arbitration: arbitration, skew: skew, maxSkew: maxSkew)
        }
        func describe(_ c: LinkContender) -> String {
            let it = h.intents[Int(c.c.intent)]
            return "\(c.isLink ? "→" : "↛") #\(c.target.raw) (\(it.write.id) by \(it.origin))"
        }
        /// Under `.recordTimestamp`: the contenders the winning rows hold (the last op of each
        /// holder on the register); nil when the winners did not set it (not judged).
        func held(_ cs: [LinkContender], _ e: EntityID) -> [LinkContender]? {
            guard let rw = records else { return nil }
            let hs = Self.recordHolders(cs.map(\.c.intent), of: e, rw)
            return hs.isEmpty ? nil : hs.compactMap { i in cs.last { $0.c.intent == i } }
        }
        func judge(_ k: UInt64, _ e: EntityID, _ ns: NamespaceID, _ l: LinkID, final: String, why: String) {
            let ref = EntityRef(e, ns)
            if records == nil, let la = lastTouch[k], !la.targeted {
                let tx = h.applied[la.tx].tx
                report(Violation(.disjointFieldMerge, at: t, entity: e,
                                 "\(ref).\(schema.name(of: l)) \(final), expected \(why): tx \(tx.txID) from \(tx.origin) overwrote it while writing other things (\(tx.writes.map(\.description).joined(separator: ", ")))"))
            } else if lww {
                var v = Violation(.lwwConvergence, at: t, entity: e,
                                  "\(ref).\(schema.name(of: l)) \(final), but the last link write in \(arbitration) order is \(why)")
                // The culprit: the last transaction that stepped on the link (what left it so).
                if let la = lastTouch[k] {
                    let tx = h.applied[la.tx].tx
                    v.culprit = tx.ops.last { op in
                        switch op {
                        case .link(let x, let y, _), .unlink(let x, let y, _): return x == e && y == l
                        default: return false
                        }
                    }.map { Self.culprit(tx.origin, $0) }
                }
                report(v)
            }
        }
        // Cardinality one: every link of every entity the server has, in id order.
        for (e, rec) in data.entities {
            for l in schema.links(of: rec.namespace) where !schema.isMany(l) {
                let k = Self.linkKey(e, l)
                guard let cs = contenders[k] else { continue }
                let final = rec[l]
                if records != nil {
                    guard let hs = held(cs, e) else { continue }
                    let fine = hs.contains { c in
                        c.isLink ? final == c.target || deletedOnServer.contains(e) || deletedOnServer.contains(c.target) || !data.contains(c.target)
                                 : final != c.target
                    }
                    if !fine {
                        judge(k, e, rec.namespace, l, final: final.map { "→ #\($0.raw)" } ?? "is empty", why: hs.map(describe).joined(separator: " or "))
                    }
                    continue
                }
                let links = cs.filter(\.isLink)
                let linkWins = links.isEmpty ? [] : wins(links)
                let winners = links.indices.filter { linkWins[$0] }.map { links[$0] }
                let ok: Bool
                if let f = final {
                    ok = winners.contains { $0.target == f } || (links.isEmpty && initialData[e]?[l] == f)
                } else {
                    let all = wins(cs)
                    ok = links.isEmpty || cs.indices.contains { all[$0] && !cs[$0].isLink }
                        || deletedOnServer.contains(e)
                        || winners.contains { deletedOnServer.contains($0.target) || !data.contains($0.target) }
                }
                if ok { continue }
                let want = (winners.isEmpty ? cs : winners).map(describe).joined(separator: " or ")
                judge(k, e, rec.namespace, l, final: final.map { "→ #\($0.raw)" } ?? "is empty", why: want)
            }
        }
        // Has-many: each (entity, link, target) register some write targeted, in key order.
        for k in manyKeys.sorted() {
            guard let cs = contenders[k] else { continue }
            let e = EntityID(UInt32(k >> 40)), l = LinkID(UInt8(truncatingIfNeeded: k >> 32)), target = cs[0].target
            guard let ns = data.namespace(of: e) else { continue }
            let present = data[e]!.points(l, at: target)
            if records != nil {
                guard let hs = held(cs, e) else { continue }
                let fine = hs.contains { $0.isLink == present }
                    || (!present && (deletedOnServer.contains(e) || deletedOnServer.contains(target) || !data.contains(target)))
                if !fine { judge(k, e, ns, l, final: present ? "has → #\(target.raw)" : "lacks → #\(target.raw)", why: hs.map(describe).joined(separator: " or ")) }
                continue
            }
            let all = wins(cs)
            let ok = cs.indices.contains { all[$0] && cs[$0].isLink == present }
                || (!present && (deletedOnServer.contains(e) || deletedOnServer.contains(target) || !data.contains(target)))
            if ok { continue }
            let want = cs.indices.filter { all[$0] }.map { describe(cs[$0]) }.joined(separator: " or ")
            judge(k, e, ns, l, final: present ? "has → #\(target.raw)" : "lacks → #\(target.raw)", why: want)
        }
    }
}

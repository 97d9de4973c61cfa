import Testing
@testable import SyncSim

/// A store finds the records linking to a deleted entity by reading its slots in place
/// (`EntityStore.slots(referringTo:)`), once per delete even under an undo log, and hashes and
/// compares stores in place. Each is checked here against the code it replaced, written out as
/// it was (copying every record out of the array), after every step of random sequences of
/// creates, updates, deletes, links, unlinks, records assigned whole (with links a `link` step
/// would refuse: to entities of other namespaces, to absent ones, to themselves), undo-logged
/// transactions and rollbacks, in a schema with links of both cardinalities.
@Suite("EntityStore delete in place")
struct EntityStoreDeleteTests {
    static let graph = try! Schema(
        name: "graph",
        namespaces: [
            .init("nodes", singular: "node", fields: [.string("label"), .int("weight", initialValue: 0)]),
            .init("tags", singular: "tag", fields: [.string("name")]),
        ],
        links: [
            .init("next", from: "nodes", to: "nodes", cardinality: .one, reverseName: "prev"),
            .init("peers", from: "nodes", to: "nodes", cardinality: .many, reverseName: "peerOf"),
            .init("tag", from: "nodes", to: "tags", cardinality: .one, reverseName: "tagged"),
            .init("labels", from: "nodes", to: "tags", cardinality: .many, reverseName: "labelled"),
        ])

    /// The delete as it was: the slot emptied, then every record still linking to the entity
    /// (asked of a copy of each record) loses its links to it, through the public subscript.
    static func oldDelete(_ e: EntityID, in s: inout EntityStore) {
        guard s.contains(e) else { return }
        s[e] = nil
        for i in 0..<s.records.count {
            let r = s.records[i]
            if var r, r.refers(to: e) {
                r.removeLinks(to: e)
                s[EntityID(UInt32(i))] = r
            }
        }
    }

    /// The slots `apply(_:undo:)` logged for a step, as it did: the step's entity, then for a
    /// delete of a present entity every slot whose record referred to it, ascending; each once,
    /// and only below the log's start.
    static func oldLogged(_ op: Op, in s: EntityStore, already: [Int], start: Int) -> [Int] {
        var out: [Int] = []
        func save(_ i: Int) { if i < start, !already.contains(i), !out.contains(i) { out.append(i) } }
        save(Int(op.entity.raw))
        if case .delete(let e, _) = op, s.contains(e) {
            for i in 0..<s.records.count where s.records[i].map({ $0.refers(to: e) }) == true { save(i) }
        }
        return out
    }

    static func oldHash(_ s: EntityStore) -> UInt64 {
        var h = StableHasher()
        h.combine(s.count)
        for (i, r) in s.records.enumerated() {
            if let r { h.combine(UInt32(i)); r.stableHash(into: &h) }
        }
        return h.value
    }

    static func oldEqual(_ a: EntityStore, _ b: EntityStore) -> Bool {
        if a.count != b.count { return false }
        for i in 0..<max(a.records.count, b.records.count) {
            let x = i < a.records.count ? a.records[i] : nil
            let y = i < b.records.count ? b.records[i] : nil
            if x != y { return false }
        }
        return true
    }

    struct Counts { var deletes = 0, referred = 0, selfLinked = 0, foreign = 0, rollBacks = 0, logged = 0 }

    @Test func randomSequencesMatchTheOldCode() {
        let schema = Self.graph
        let node = NamespaceID(0), tag = NamespaceID(1)
        let next = schema.link(named: "next")!, peers = schema.link(named: "peers")!
        let tagL = schema.link(named: "tag")!, labels = schema.link(named: "labels")!
        let allLinks = [next, peers, tagL, labels]
        var state: UInt64 = 12345
        func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        let n = 48
        func anyID() -> EntityID { EntityID(UInt32(below(n))) }
        func randomOp() -> Op {
            let e = anyID()
            switch below(10) {
            case 0, 1: return .create(e, below(3) == 0 ? tag : node, [])
            case 2: return .update(e, node, [FieldAssignment(FieldID(1), .int(below(5)))])
            case 3, 4: return .delete(e, node)
            case 5: return .unlink(e, allLinks[below(4)], anyID())
            default: return .link(e, allLinks[below(4)], anyID())
            }
        }
        /// A record assigned whole, as strategies build them: links in any slot, to any id.
        func randomRecord() -> EntityRecord {
            var r = EntityRecord(namespace: below(2) == 0 ? node : tag, schema: schema)
            for l in [next, tagL] where below(2) == 0 { r[l] = anyID() }
            for l in [peers, labels] where below(2) == 0 {
                for _ in 0..<below(3) { r.setLink(l, to: anyID(), many: true) }
            }
            return r
        }
        var counts = Counts()
        var s = EntityStore()
        for round in 0..<60 {
            var undo = EntityStore.UndoLog()
            let before = s
            var logged: [Int] = []
            let logging = below(2) == 0
            for step in 0..<40 {
                if below(8) == 0 {
                    let e = anyID(), r: EntityRecord? = below(4) == 0 ? nil : randomRecord()
                    if logging {
                        let start = undo.slots < 0 ? s.records.count : undo.slots
                        if Int(e.raw) < start, !logged.contains(Int(e.raw)) { logged.append(Int(e.raw)) }
                        s.set(e, r, undo: &undo)
                    } else {
                        s[e] = r
                    }
                    continue
                }
                let op = randomOp()
                if case .delete(let e, _) = op, s.contains(e) {
                    counts.deletes += 1
                    let refs = (0..<s.records.count).filter { s.records[$0].map { $0.refers(to: e) } == true }
                    if !refs.filter({ $0 != Int(e.raw) }).isEmpty { counts.referred += 1 }
                    if refs.contains(Int(e.raw)) { counts.selfLinked += 1 }
                    // A referrer whose link to `e` is not one a `link` step could have made.
                    let ns = s.namespace(of: e)!
                    for i in refs where s.records[i]!.namespace != node
                        || allLinks.contains(where: { s.records[i]!.points($0, at: e) && schema.target(of: $0) != ns }) {
                        counts.foreign += 1
                    }
                    for l in allLinks {
                        let want = (0..<s.records.count).filter { s.records[$0].map { $0.points(l, at: e) } == true }
                        #expect(s.referrers(to: e, via: l).map { Int($0.raw) } == want, "round \(round) step \(step)")
                    }
                }
                var old = s
                let err: ApplyError?
                if logging {
                    let start = undo.slots < 0 ? s.records.count : undo.slots
                    logged += Self.oldLogged(op, in: s, already: logged, start: start)
                    err = s.apply(op, schema: schema, undo: &undo)
                } else {
                    err = s.apply(op, schema: schema)
                }
                if case .delete(let e, _) = op { Self.oldDelete(e, in: &old) } else { _ = old.apply(op, schema: schema) }
                #expect(err == nil || !op.isDelete)
                #expect(Self.oldEqual(s, old), "round \(round) step \(step): \(op)")
                #expect(s.records.count == old.records.count && s.count == old.count)
                #expect(s == old)
                #expect(StableHasher.hash(s) == Self.oldHash(old))
                #expect(StableHasher.hash(s) == Self.oldHash(s))
                if logging {
                    #expect(undo.saved.map(\.index) == logged, "round \(round) step \(step): \(op)")
                }
            }
            if logging {
                counts.logged += 1
                if below(2) == 0 {
                    s.rollBack(undo)
                    counts.rollBacks += 1
                    #expect(Self.oldEqual(s, before) && s == before && s.records.count == before.records.count)
                    #expect(StableHasher.hash(s) == Self.oldHash(before))
                }
            }
            // `==` against the old comparison on near misses: a trailing absent slot, one
            // record changed.
            var longer = s
            longer[EntityID(UInt32(s.records.count + 3))] = EntityRecord(namespace: node, schema: schema)
            longer[EntityID(UInt32(s.records.count + 3))] = nil
            #expect((longer == s) == Self.oldEqual(longer, s) && Self.oldEqual(longer, s))
            if let i = s.records.indices.first(where: { s.records[$0] != nil }) {
                var other = s
                other[EntityID(UInt32(i))]![FieldID(0)] = .string("other")
                #expect((other == s) == Self.oldEqual(other, s))
            }
        }
        // The sequences reached what the in-place pass must get right.
        #expect(counts.deletes > 150 && counts.referred > 50 && counts.selfLinked > 1 && counts.foreign > 10, "\(counts)")
        #expect(counts.rollBacks > 5 && counts.logged > 15, "\(counts)")
    }

    /// `removeReferences(to:)` on its own (a public method) leaves what the old walk left.
    @Test func removeReferencesMatchesTheOldWalk() {
        let schema = Self.graph
        let next = schema.link(named: "next")!, peers = schema.link(named: "peers")!
        var s = EntityStore()
        for i in 0..<12 { s[EntityID(UInt32(i))] = EntityRecord(namespace: NamespaceID(0), schema: schema) }
        for i in 0..<12 {
            s[EntityID(UInt32(i))]![next] = EntityID(UInt32((i * 5) % 12))
            s[EntityID(UInt32(i))]!.setLink(peers, to: EntityID(UInt32((i * 7) % 12)), many: true)
            s[EntityID(UInt32(i))]!.setLink(peers, to: EntityID(3), many: true)
        }
        for t in 0..<13 {
            var mine = s, old = s
            mine.removeReferences(to: EntityID(UInt32(t)))
            for i in 0..<old.records.count where old.records[i]?.refers(to: EntityID(UInt32(t))) == true {
                var r = old.records[i]!
                r.removeLinks(to: EntityID(UInt32(t)))
                old[EntityID(UInt32(i))] = r
            }
            #expect(Self.oldEqual(mine, old) && mine.records == old.records, "target \(t)")
            #expect(!mine.records.contains { $0?.refers(to: EntityID(UInt32(t))) == true })
        }
    }
}

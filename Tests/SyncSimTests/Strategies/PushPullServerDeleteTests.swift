import Testing
@testable import SyncSim

/// The pushPull server deletes an entity by changing only the rows that link to it, found in one
/// pass that reads the store in place (`PushPullServer.linkingRows`), instead of through
/// `EntityStore.apply(.delete)` and a `referrers(to:via:)` per link (each a walk of the whole
/// store copying every record). It must leave the very store `apply` left, log the same slots
/// under a back-office write (so a rollback restores the store), and re-stamp the same rows, for
/// rows that link to the entity by several links, by has-many links, and to themselves.
@Suite("PushPull server delete")
struct PushPullServerDeleteTests {
    static let graph = try! Schema(
        name: "graph",
        namespaces: [.init("nodes", singular: "node", fields: [.string("label")])],
        links: [
            .init("next", from: "nodes", to: "nodes", cardinality: .one, reverseName: "prev"),
            .init("peers", from: "nodes", to: "nodes", cardinality: .many, reverseName: "peerOf"),
        ])

    @Test func aDeleteLeavesWhatApplyLeft() {
        let schema = Self.graph
        let node = NamespaceID(0), next = schema.link(named: "next")!, peers = schema.link(named: "peers")!
        var state: UInt64 = 9
        func below(_ n: Int) -> Int {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            return Int((state >> 33) % UInt64(n))
        }
        var server = PushPullServer(schema: schema)
        let n = 40
        for i in 1...n {
            let e = EntityID(UInt32(i))
            _ = server.applyData(.create(e, node, [FieldAssignment(FieldID(0), .string("n\(i)"))]))
            server.newMeta(e, 0)
        }
        for _ in 0..<120 {
            let e = EntityID(UInt32(1 + below(n))), t = EntityID(UInt32(1 + below(n)))
            _ = server.applyData(.link(e, below(2) == 0 ? next : peers, t))
        }
        // Cases the random links may miss: a row linking to one entity by both links, one
        // linking to itself, and an entity linked from both kinds of rows.
        for (e, l, t) in [(1, next, 2), (1, peers, 2), (3, next, 3), (4, peers, 2), (5, peers, 5)] {
            #expect(server.applyData(.link(EntityID(UInt32(e)), l, EntityID(UInt32(t)))) == nil)
        }
        var multiple = 0, selfLinked = 0, checked = 0
        for i in 0...(n + 1) {   // 0 and n + 1: ids the store does not have
            let e = EntityID(UInt32(i))
            // The lists the old code built, by the store's own walks.
            var perLink: [EntityID] = []
            for l in schema.linkIDs { perLink.append(contentsOf: server.data.referrers(to: e, via: l)) }
            let refer = server.data.records.indices.filter { server.data.records[$0]?.refers(to: e) == true }.map { EntityID(UInt32($0)) }
            let (restamp, linking) = server.linkingRows(e)
            #expect(restamp == perLink.sorted(), "entity \(i)")
            #expect(linking == refer, "entity \(i)")
            if Set(restamp).count < restamp.count { multiple += 1 }
            if linking.contains(e) { selfLinked += 1 }

            var mine = server
            mine.delete(e)
            var want = server.data
            _ = want.apply(.delete(e, server.data[e]?.namespace ?? NamespaceID(0)), schema: schema, mode: .upsert)
            #expect(mine.data == want, "entity \(i)")
            let stamped = mine.stamps[server.stamps.count...].map { $0.entity }
            #expect(stamped == [e] + perLink.sorted().filter { server.meta[$0] != nil && $0 != e }, "entity \(i)")

            // Under a back-office write: the same slots logged, so a rollback restores the store.
            var admin = server
            admin.undo = PushPullServer.AdminUndo(admin)
            admin.delete(e)
            #expect(admin.data == want, "entity \(i)")
            var old = server
            old.undo = PushPullServer.AdminUndo(old)
            _ = old.applyData(.delete(e, server.data[e]?.namespace ?? NamespaceID(0)))
            #expect(admin.undo!.data.saved.map(\.index) == old.undo!.data.saved.map(\.index), "entity \(i)")
            admin.rollBack(admin.undo!)
            #expect(admin.data == server.data, "entity \(i)")
            checked += 1
        }
        #expect(checked == n + 2)
        #expect(multiple > 0 && selfLinked > 1)
    }
}

import Foundation
import Testing
@testable import SyncSim

/// Histories written by hand, as a team would record them from a real app and server — not
/// produced by the simulator — one per bug class, each flagged with the right invariant, and
/// clean versions of the same stories that pass. The header is the minimum a recorder writes.
@Suite struct HandWrittenHistoryTests {
    static let header = #"{"syncsim":"history","version":1,"clients":2,"queueCap":50,"arbitration":"serverArrival","initial":[{"entity":1,"namespace":"todos","set":{"title":"milk","done":false}}]}"#

    static func check(_ lines: [String]) throws -> HistoryCheck.Result {
        try HistoryCheck.check(lines: [header] + lines, file: "hand.jsonl")
    }

    static func invariants(_ r: HistoryCheck.Result) -> [InvariantID] { r.violations.map(\.invariant) }

    @Test func ghostDeletion() throws {
        // A's sync engine deletes todo 1 although nobody asked to (a diff against a stale view).
        let bad = try Self.check([
            #"{"e":"write","t":100,"client":"A","seq":1,"id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"done":true}}]}"#,
            #"{"e":"commit","t":120,"tx":1,"origin":"A","writes":[0],"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"done":true}},{"op":"delete","entity":1,"namespace":"todos"}]}"#,
            #"{"e":"end","t":200}"#,
        ])
        #expect(Self.invariants(bad) == [.noGhostDeletion], "\(bad.violations)")
        #expect(bad.violations.first?.entity == EntityID(1))
        let good = try Self.check([
            #"{"e":"write","t":100,"client":"A","seq":1,"id":0,"ops":[{"op":"delete","entity":1,"namespace":"todos"}]}"#,
            #"{"e":"commit","t":120,"tx":1,"origin":"A","writes":[0],"ops":[{"op":"delete","entity":1,"namespace":"todos"}]}"#,
            #"{"e":"end","t":200}"#,
        ])
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    @Test func lostAcknowledgedWrite() throws {
        // A's write is queued (the user saw it accepted), the app restarts and the queue is empty:
        // never applied, never told it failed.
        let story = [
            #"{"e":"write","t":100,"client":"A","seq":1,"id":0,"offline":true,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":"bread"}}]}"#,
            #"{"e":"queue","t":100,"client":"A","seq":2,"writes":[0]}"#,
            #"{"e":"done","t":100,"client":"A","seq":3}"#,
            #"{"e":"restart","t":500,"client":"A","seq":4,"pendingAtCrash":[0],"pendingAfter":[]}"#,
            #"{"e":"queue","t":500,"client":"A","seq":5,"writes":[]}"#,
        ]
        let bad = try Self.check(story + [#"{"e":"end","t":900}"#])
        #expect(Self.invariants(bad) == [.noLostAcknowledgedWrite], "\(bad.violations)")
        #expect(bad.violations.first?.explanation.contains("a restart at t=500ms lost it") == true)
        // Told it failed: not lost.
        let told = try Self.check(story + [#"{"e":"rejected","t":600,"client":"A","seq":6,"write":0,"reason":"invalid","detail":"queue lost"}"#, #"{"e":"end","t":900}"#])
        #expect(told.violations.isEmpty, "\(told.violations)")
    }

    @Test func toldRejectedButApplied() throws {
        let write = #"{"e":"write","t":100,"client":"B","seq":1,"id":4,"ops":[{"op":"create","entity":2,"namespace":"todos","set":{"title":"eggs","done":false}}]}"#
        let commit = #"{"e":"commit","t":150,"tx":7,"origin":"B","writes":[4],"ops":[{"op":"create","entity":2,"namespace":"todos","set":{"title":"eggs","done":false}}]}"#
        // The retry is answered "already exists" and the app rolls back, though the server committed it.
        let bad = try Self.check([write, commit, #"{"e":"rejected","t":300,"client":"B","seq":2,"write":4,"reason":"serverError","detail":"already exists"}"#, #"{"e":"end","t":400}"#])
        #expect(Self.invariants(bad) == [.toldOutcomeIsTrue], "\(bad.violations)")
        #expect(bad.violations.first?.client == ClientID(1))
        let good = try Self.check([write, commit, #"{"e":"confirmed","t":300,"client":"B","seq":2,"write":4}"#, #"{"e":"end","t":400}"#])
        #expect(good.violations.isEmpty, "\(good.violations)")
        // Confirmed before the server had it: also untrue.
        let early = try Self.check([write, #"{"e":"confirmed","t":120,"client":"B","seq":2,"write":4}"#, commit, #"{"e":"end","t":400}"#])
        #expect(Self.invariants(early) == [.toldOutcomeIsTrue], "\(early.violations)")
    }

    /// A subscribes, writes, and a server refresh that arrives before the ack shows the old value.
    static func ownWrite(refreshShows title: String) -> [String] {
        [
            #"{"e":"subscribe","t":0,"client":"A","seq":1,"sub":1,"query":{"namespace":"todos"}}"#,
            #"{"e":"done","t":0,"client":"A","seq":2}"#,
            #"{"e":"yield","t":50,"client":"A","seq":3,"sub":1,"result":{"roots":[1],"records":[{"entity":1,"namespace":"todos","set":{"title":"milk","done":false}}]}}"#,
            #"{"e":"write","t":100,"client":"A","seq":4,"id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":"bread"}}]}"#,
            // The queue first: the oracles read it when the app shows the write (a write out of
            // the queue has a known outcome, so nothing it showed could revert it).
            #"{"e":"queue","t":100,"client":"A","seq":5,"writes":[0]}"#,
            #"{"e":"yield","t":100,"client":"A","seq":6,"sub":1,"result":{"roots":[1],"records":[{"entity":1,"namespace":"todos","set":{"title":"bread","done":false}}]}}"#,
            #"{"e":"done","t":100,"client":"A","seq":7}"#,
            #"{"e":"yield","t":180,"client":"A","seq":8,"sub":1,"result":{"roots":[1],"records":[{"entity":1,"namespace":"todos","set":{"title":"\#(title)","done":false}}]}}"#,
            #"{"e":"commit","t":200,"tx":1,"origin":"A","writes":[0],"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"title":"bread"}}]}"#,
            #"{"e":"confirmed","t":250,"client":"A","seq":9,"write":0}"#,
            #"{"e":"queue","t":250,"client":"A","seq":10,"writes":[]}"#,
            #"{"e":"yield","t":250,"client":"A","seq":11,"sub":1,"result":{"roots":[1],"records":[{"entity":1,"namespace":"todos","set":{"title":"bread","done":false}}]}}"#,
            #"{"e":"end","t":300,"heal":0}"#,
        ]
    }

    @Test func revertedOwnWrite() throws {
        let bad = try Self.check(Self.ownWrite(refreshShows: "milk"))
        #expect(Self.invariants(bad) == [.neverRevertOwnWrite], "\(bad.violations)")
        #expect(bad.violations.first?.time == 180)
        let good = try Self.check(Self.ownWrite(refreshShows: "bread"))
        #expect(good.violations.isEmpty, "\(good.violations)")
        #expect(good.notRun.map(\.invariant).sorted() == [.cachedSubscriptionOffline, .noReconnectWhileOffline, .noRequestWhileOffline, .queryOnceOfflineFails, .noDuplicateRows, .tenantIsolation].sorted(),
                "no net lines: only the network oracles (and noDuplicateRows: no row ids in the format; tenants, which histories do not record) are left out; \(good.notRun)")
    }

    @Test func duplicateApplication() throws {
        let write = #"{"e":"write","t":100,"client":"A","seq":1,"id":0,"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"done":true}}]}"#
        let commit1 = #"{"e":"commit","t":150,"tx":1,"origin":"A","writes":[0],"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"done":true}}]}"#
        // The ack was lost, the client retried without an idempotency key, the server applied it again.
        let commit2 = #"{"e":"commit","t":900,"tx":2,"origin":"A","writes":[0],"ops":[{"op":"update","entity":1,"namespace":"todos","set":{"done":true}}]}"#
        let bad = try Self.check([write, commit1, commit2, #"{"e":"end","t":1000}"#])
        #expect(Self.invariants(bad) == [.noDuplicateApplication], "\(bad.violations)")
        let good = try Self.check([write, commit1, #"{"e":"end","t":1000}"#])
        #expect(good.violations.isEmpty, "\(good.violations)")
    }

    @Test func oraclesWithoutDataAreListedNotRun() throws {
        let r = try HistoryCheck.check(lines: [#"{"syncsim":"history","version":1,"clients":1}"#, #"{"e":"end","t":0}"#])
        let notRun = Dictionary(uniqueKeysWithValues: r.notRun.map { ($0.invariant.rawValue, $0.why) })
        #expect(notRun["lwwConvergence"]?.contains("no conflict rule") == true)
        #expect(notRun["readYourWrites"]?.contains("no subscription results") == true)
        #expect(notRun["queueCapNoSilentDrop"]?.contains("no queue cap") == true)
        #expect(notRun["timelyFeedback"]?.contains("heal") == true)
        #expect(r.judged.contains(.noGhostDeletion) && r.judged.contains(.toldOutcomeIsTrue))
        // --arbitration supplies the rule.
        let withRule = try HistoryCheck.check(lines: [#"{"syncsim":"history","version":1,"clients":1}"#], HistoryCheck.Options(arbitration: .clientTimestamp))
        #expect(withRule.judged.contains(.lwwConvergence) && withRule.arbitration == .clientTimestamp)
    }

    /// The Swift recording API writes what the checker reads.
    @Test func recorderOutputChecks() throws {
        var lines: [String] = []
        let schema = Schema.default
        let rec = HistoryRecorder(header: HistoryHeader(clients: 1, arbitration: .serverArrival), sink: { lines.append($0) })
        let w = UserWrite(id: WriteID(3), ops: [.create(EntityID(5), .todos, [FieldAssignment(.title, .string("say \"hi\"\n"))])])
        rec.write(w, client: ClientID(0), at: 10, seq: 1)
        rec.actionDone(client: ClientID(0), at: 10, seq: 2)
        rec.commit(AppliedTransaction(txID: 1, origin: .client(ClientID(0)), writes: [w.id], ops: w.ops), at: 20)
        rec.commit(AppliedTransaction(txID: 2, origin: .admin, writes: [], ops: [.delete(EntityID(5), .todos)]), at: 30)
        rec.end(at: 40)
        let r = try HistoryCheck.check(lines: lines)
        #expect(r.intents == 1 && r.commits == 2)
        #expect(Self.invariants(r) == [.noGhostDeletion], "the admin delete nobody asked for; \(r.violations)")
        _ = schema
    }

    /// The examples in the README and the RecordingHistories article check as the text says.
    @Test func documentedExamplesCheckAsDocumented() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
        func example(_ file: String, after marker: String) throws -> [String] {
            let text = try String(contentsOf: root.appendingPathComponent(file), encoding: .utf8)
            let from = try #require(text.range(of: marker)).upperBound
            let start = try #require(text.range(of: "```json\n", range: from..<text.endIndex)).upperBound
            let end = try #require(text.range(of: "```", range: start..<text.endIndex)).lowerBound
            return text[start..<end].split(separator: "\n").map(String.init)
        }
        let readme = try HistoryCheck.check(lines: example("README.md", after: "## Checking a real system's history"))
        #expect(Self.invariants(readme) == [.toldOutcomeIsTrue], "\(readme.violations)")
        let article = try HistoryCheck.check(lines: example("Sources/SyncSim/SyncSim.docc/RecordingHistories.md", after: "## The format"))
        #expect(article.violations.isEmpty && article.intents == 1 && article.commits == 1, "\(article.violations)")
    }

    /// A schema of the user's own is embedded in the header and read back as the same value.
    @Test func embeddedSchemaReadsBack() throws {
        let notes = try Schema(name: "notes",
            namespaces: [.init("notes", singular: "note", fields: [.string("title"), .bool("pinned", initialValue: false)]),
                         .init("tags", singular: "tag", fields: [.string("tagName")])],
            links: [.init("tags", from: "notes", to: "tags", cardinality: .many, reverseName: "taggedNotes")])
        var initial = EntityStore()
        var note = EntityRecord(namespace: notes.namespace(named: "notes")!, schema: notes)
        note[notes.field(named: "title")!] = .string("groceries")
        note.setLink(notes.link(named: "tags")!, to: EntityID(2), many: true)
        initial[EntityID(1)] = note
        let header = HistoryHeader(schema: notes, clients: 3, queueCap: 10, persistence: false, skews: [0, 5, -5],
                                   arbitration: .hybridLogicalClock, contract: [.convergence], strategy: "notesSync", initial: initial)
        let back = try HistoryHeader.parse(Array(header.line().utf8))
        #expect(back == header)
        let r = try HistoryCheck.check(lines: [header.line(),
            #"{"e":"write","t":5,"client":"C","id":1,"ops":[{"op":"link","entity":1,"link":"tags","target":3}]}"#])
        #expect(r.intents == 1 && r.header.schema.name == "notes")
    }
}

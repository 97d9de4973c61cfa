import Testing
@testable import SyncSim

/// Arrow labels read the write ids, entities and fields out of the built-in strategies' message
/// sentences (copied from real traces), and nothing out of quoted values.
@Suite struct MessageSummaryTests {
    func label(_ text: String, _ kind: String) -> String { MessageSummary(text: text, kind: kind).label(kind: kind) }

    @Test func instantTransactCarriesItsWriteAndFields() {
        #expect(label("A sends transact w1 [set profile#1 {name = \"milk14\"} (upsert)]", "transact") == "transact w1 profile#1{name}")
        #expect(label("server sends A transact-ok w1 tx-id 2", "transact-ok") == "transact-ok w1")
        #expect(label("server sends A transact-ok (no user write) tx-id 3", "transact-ok") == "transact-ok tx3")
    }

    @Test func aDeleteIsNamedWhateverRidesAlong() {
        let m = MessageSummary(text: "A sends transact (no user write) [delete profile#2; set profile#1 {name = \"Alice\", bio = \"a\"} (upsert); set post#3 {content = \"hi\", likes = 0} (upsert); link post#3.author → profile#1]", kind: "transact")
        #expect(m.writes.isEmpty)
        #expect(m.deleted == ["profile#2"])
        #expect(m.entities.map(\.name) == ["profile#2", "profile#1", "post#3"])
        #expect(m.entities[2].fields == ["content", "likes", "author"])
        #expect(m.label(kind: "transact") == "transact del profile#2 +2")
    }

    @Test func otherStrategiesFormats() {
        #expect(label("C sends write w0 [set profile#1 {name = \"call12\", bio = \"idea13\"}] if-match #1@?", "write") == "write w0 profile#1{name,bio}")
        #expect(label("B sends push #2 lastPulledAt 11: updated profile#1{name = \"note18\", bio = \"ship2\"}@3620 [w6]; updated profile#2{name = \"fix3\", bio = \"milk16\"}@3356 [w4]; updated profile#3{name = \"milk5\", bio = \"fix15\"}@2887 [w2]", "push")
                == "push w6,w4+1 3 entities")
        #expect(label("C sends sync #2 from v1 push [w0@2234.0@C]", "sync") == "sync w0")
        #expect(label("A sends init", "init") == "init")
        #expect(label("A sends pull #1 since the beginning", "pull") == "pull")
    }

    @Test func quotedValuesAreNotIds() {
        let m = MessageSummary(text: "A sends transact w3 [set todo#7 {title = \"w9 todo#8 \\\" tx 4\"}]", kind: "transact")
        #expect(m.writes == ["w3"])
        #expect(m.entities.map(\.name) == ["todo#7"])
        #expect(m.tx == nil)
    }

    @Test func labelsAreShort() {
        let long = "A sends transact w1 [set averyveryverylongnamespace#123456 {afieldwithalongname = 1, another = 2, third = 3}]"
        #expect(label(long, "transact").count <= 34)
        #expect(label(long, "transact").hasSuffix("…"))
    }
}

import Foundation
import Testing
@testable import SyncSim

/// A notes app's data model: has-many tags, a cardinality-one folder.
let notesSchema = try! Schema(
    name: "notes",
    namespaces: [
        .init("notes", singular: "note", fields: [.string("title"), .string("body"), .bool("pinned", initialValue: false)]),
        .init("folders", singular: "folder", fields: [.string("label")]),
        .init("tags", singular: "tag", fields: [.string("tagName")]),
    ],
    links: [
        .init("tags", from: "notes", to: "tags", cardinality: .many, reverseName: "notes"),
        .init("folder", from: "notes", to: "folders", cardinality: .one, reverseName: "folderNotes"),
    ])

@Suite struct SchemaTests {
    /// The default schema keeps the ids the fixed model had (trace hashes of the built-ins
    /// depend on them), and its static constants name them.
    @Test func defaultSchemaKeepsTheFixedIDs() {
        let s = Schema.default
        #expect(s.namespaceNames == ["todos", "profiles", "posts"])
        #expect(s.allFieldNames == ["title", "done", "priority", "name", "bio", "content", "likes"])
        #expect(Array(s.fields(of: .todos)) == [.title, .done, .priority])
        #expect(Array(s.fields(of: .posts)) == [.content, .likes])
        #expect(s.kind(of: .done) == .bool && s.kind(of: .likes) == .int && s.kind(of: .bio) == .string)
        #expect(s.source(of: .author) == .posts && s.target(of: .author) == .profiles && !s.isMany(.author))
        #expect(Array(s.links(of: .posts)) == [.author] && s.links(of: .todos).isEmpty)
        #expect(EntityRecord(namespace: .todos, schema: s).values.count == s.fieldCount)
        #expect(s.initialValue(of: .priority) == .int(1))
    }

    /// Links get ids grouped by source namespace, so each namespace's links are a range.
    @Test func linksAreGroupedBySource() {
        let s = notesSchema
        #expect(s.linkCount == 2 && s.hasManyLinks)
        #expect(s.links(of: NamespaceID(0)).map { s.name(of: $0) } == ["tags", "folder"])
        #expect(s.incomingLinks(of: NamespaceID(2)).map { s.reverseName(of: $0) } == ["notes"])
        #expect(s.link(reverseNamed: "folderNotes", on: NamespaceID(1)) == s.link(named: "folder"))
    }

    /// Every declaration mistake is a located error, never a crash.
    @Test func badDeclarationsAreLocatedErrors() {
        func error(_ ns: [Schema.Namespace], _ links: [Schema.Link] = [], name: String = "x") -> SchemaError? {
            do { _ = try Schema(name: name, namespaces: ns, links: links); return nil } catch let e as SchemaError { return e } catch { return nil }
        }
        let a = Schema.Namespace("as", singular: "a", fields: [.string("t")])
        #expect(error([])?.path == "namespaces")
        #expect(error([a], name: "bad name")?.path == "name")
        #expect(error([a, .init("bs", singular: "b", fields: [.string("t")])])?.path == "namespaces[1].fields[0].name")
        #expect(error([a, .init("as", singular: "a2", fields: [])])?.path == "namespaces[1].name")
        #expect(error([a], [.init("l", from: "as", to: "as", reverseName: "l")])?.path == "links[0].reverseName")
        #expect(error([a], [.init("l", from: "as", to: "nope", reverseName: "r")])?.path == "links[0].to")
        #expect(error([.init("as", singular: "a", fields: [Schema.Field("n", .int, initialValue: .bool(true))])])?.path == "namespaces[0].fields[0].initialValue")
        #expect(error([a], [.init("l", from: "as", to: "as", reverseName: "r"), .init("m", from: "as", to: "as", reverseName: "r")])?.path == "links[1].reverseName")
        let many = (0..<200).map { Schema.Field("f\($0)", .int) }
        #expect(error([.init("as", singular: "a", fields: many)])?.message.contains("at most") == true)
    }

    /// Has-many links: link adds (ascending, no duplicates), unlink removes, delete clears.
    @Test func hasManyLinksInTheStore() {
        let s = notesSchema
        let tags = s.link(named: "tags")!, folder = s.link(named: "folder")!
        let note = NamespaceID(0), folders = NamespaceID(1), tagsNS = NamespaceID(2)
        var st = EntityStore()
        #expect(st.apply(.create(EntityID(1), note, []), schema: s) == nil)
        #expect(st.apply(.create(EntityID(5), tagsNS, []), schema: s) == nil)
        #expect(st.apply(.create(EntityID(3), tagsNS, []), schema: s) == nil)
        #expect(st.apply(.create(EntityID(9), folders, []), schema: s) == nil)
        #expect(st.apply(.link(EntityID(1), tags, EntityID(5)), schema: s) == nil)
        #expect(st.apply(.link(EntityID(1), tags, EntityID(3)), schema: s) == nil)
        #expect(st.apply(.link(EntityID(1), tags, EntityID(3)), schema: s) == nil)
        #expect(st.apply(.link(EntityID(1), folder, EntityID(9)), schema: s) == nil)
        #expect(st[EntityID(1)]!.targets(tags) == [EntityID(3), EntityID(5)])
        #expect(st.apply(.link(EntityID(1), tags, EntityID(9)), schema: s) == .missingLinkTarget(EntityID(9)))
        #expect(st.referrers(to: EntityID(5), via: tags) == [EntityID(1)])
        // A query through the has-many link reaches both tags; the reverse view finds the note.
        #expect(Query(note, include: .forward(tags)).evaluate(st).entries.map(\.id) == [EntityID(1), EntityID(3), EntityID(5)])
        #expect(Query(tagsNS, include: .reverse(tags)).evaluate(st).entries.map(\.id) == [EntityID(1), EntityID(3), EntityID(5)])
        #expect(st.apply(.unlink(EntityID(1), tags, EntityID(5)), schema: s) == nil)
        #expect(st[EntityID(1)]!.targets(tags) == [EntityID(3)])
        #expect(st.apply(.delete(EntityID(3), tagsNS), schema: s) == nil)
        #expect(st[EntityID(1)]!.targets(tags).isEmpty && st[EntityID(1)]![folder] == EntityID(9))
        // Ids outside the schema are errors, not traps.
        #expect(st.apply(.create(EntityID(2), NamespaceID(7), []), schema: s) == .unknownID("namespace 7"))
        #expect(st.apply(.link(EntityID(1), LinkID(9), EntityID(9)), schema: s) == .unknownID("link 9"))
        #expect(st.apply(.update(EntityID(1), note, [FieldAssignment(FieldID(99), .int(1))]), schema: s) == .unknownID("field 99"))
    }

    /// A schedule over a user schema survives the JSON round trip with its schema embedded, and
    /// compiles; the same file with a bad name is a located error.
    @Test func scenarioFilesCarryTheirSchema() throws {
        let s = notesSchema
        var g = WorkloadGenerator.Config(actions: 40)
        g.schema = s
        let schedule = WorkloadGenerator(g).generate(seed: 3)
        #expect(schedule.schema == s)
        _ = try schedule.compile()
        let text = try JSONFormat.encode(schedule)
        #expect(text.contains("\"schema\""))
        let back = try JSONDecoder().decode(Schedule.self, from: Data(text.utf8))
        #expect(back == schedule)
        // The default schema is not written (existing files stay as they are).
        let plain = WorkloadGenerator().generate(seed: 3)
        #expect(!(try JSONFormat.encode(plain)).contains("\"schema\""))
        // A file naming an unknown field gets a suggestion.
        // (Only where a patch names the field, not in the declaration.)
        let bad = text.replacingOccurrences(of: "\"label\":", with: "\"lable\":").replacingOccurrences(of: "\"label\" :", with: "\"lable\" :")
        #expect(bad != text)
        do {
            _ = try Scenario.decode(Data(("{\"format\":1,\"title\":\"t\",\"strategy\":\"instant\"," + bad.dropFirst()).utf8), file: "f.json")
            Issue.record("expected an error")
        } catch let e as ScenarioError {
            #expect(e.message.contains("lable") && e.message.contains("did you mean 'label'") && e.description.hasPrefix("f.json:"), "\(e)")
        }
    }

    /// Every built-in strategy runs a user schema with a has-many link, deterministically, and
    /// meets the invariants it claims on a few seeds (they sync ids, not a fixed model).
    @Test(arguments: ["instant", "fullEntity", "sharedDiff", "conflictPrompt", "pushPull", "reference"])
    func builtInsSyncAUserSchema(_ name: String) throws {
        let strategy = StrategyRegistry.named(name)!
        var g = WorkloadGenerator.Config(actions: 60)
        g.schema = notesSchema
        let gen = WorkloadGenerator(g)
        for seed: UInt64 in 0..<6 {
            let schedule = gen.generate(seed: seed)
            let a = try simulate(strategy, schedule, seed: seed)
            let b = try simulate(strategy, schedule, seed: seed)
            #expect(a.traceHash == b.traceHash)
            let broken = a.violations.filter { strategy.info.contract.contains($0.invariant) }
            #expect(broken.isEmpty, "\(name) seed \(seed): \(broken.map(\.description))")
        }
    }

    /// Beyond a limit, an embedded schema is refused with its JSON path, never truncated.
    @Test func embeddedSchemasBeyondTheLimitsAreRefused() {
        let ns = (0..<40).map { "{\"name\": \"n\($0)\", \"fields\": []}" }.joined(separator: ",")
        let file = "{\"format\": 1, \"title\": \"t\", \"strategy\": \"instant\", \"schema\": {\"name\": \"big\", \"namespaces\": [\(ns)]}, \"actions\": []}"
        #expect(throws: ScenarioError.self) { try Scenario.decode(Data(file.utf8), file: "big.json") }
        do { _ = try Scenario.decode(Data(file.utf8), file: "big.json") } catch let e as ScenarioError {
            #expect(e.path == "schema.namespaces" && e.message.contains("at most 32"), "\(e)")
        } catch { Issue.record("\(error)") }
    }
}

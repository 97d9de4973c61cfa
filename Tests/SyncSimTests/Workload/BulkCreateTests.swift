import Foundation
import Testing
@testable import SyncSim

/// The `bulkCreate` action: range checks with locations, one write per entity, one story line,
/// renumbering, shrinking, the generator switch, and the new `pushPull` option keys.
@Suite struct BulkCreateTests {
    static func file(_ actions: String, options: String = #"{"clients": 2}"#) -> String {
        #"{"format": 1, "title": "t", "strategy": "pushPull", "options": \#(options), "actions": \#(actions)}"#
    }

    static func error(_ text: String) -> ScenarioError? {
        do { _ = try Scenario.decode(Data(text.utf8), file: "f.json"); return nil } catch let e as ScenarioError { return e } catch { return nil }
    }

    static func bulk(first: Int = 1, count: Int = 3, extra: String = "") -> String {
        #"{"at": 10, "do": "bulkCreate", "client": "A", "firstEntity": \#(first), "count": \#(count), "namespace": "todos", "set": {"title": "x"}\#(extra)}"#
    }

    @Test(arguments: [
        (bulk(count: 0), "actions[0].count", "expected a number of entities to create in 1…10000, got 0"),
        (bulk(count: 10_001), "actions[0].count", "10001"),
        (bulk(count: -5), "actions[0].count", "got -5"),
        (bulk(first: 999_999, count: 2), "actions[0].count", "the ids 999999…1000000 end after 999999"),
        (bulk(first: 1_000_000, count: 1), "actions[0].firstEntity", "expected an entity id in 0…999999"),
        (bulk(extra: #", "entity": 4"#), "actions[0].entity", "unknown"),
        (#"{"at": 10, "do": "bulkCreate", "client": "A", "count": 3, "namespace": "todos"}"#, "actions[0]", "firstEntity"),
    ])
    func hostileBulkCreatesAreLocated(_ action: String, _ path: String, _ words: String) {
        let e = Self.error(Self.file("[\(action)]"))
        #expect(e != nil, "accepted: \(action)")
        #expect(e?.path.hasPrefix(path) == true, "\(String(describing: e))")
        #expect(e?.description.contains(words) == true, "\(String(describing: e))")
    }

    @Test func idsMustNotCollide() {
        let create = #"{"at": 5, "do": "create", "client": "B", "entity": 7, "namespace": "todos", "set": {}}"#
        let e = Self.error(Self.file("[\(create), \(Self.bulk(first: 5, count: 4))]"))
        #expect(e?.path == "actions[1].firstEntity", "\(String(describing: e))")
        #expect(e?.message.contains("entity 7 (number 3 of the 4 this bulkCreate makes, from 5) already exists") == true, "\(String(describing: e))")
    }

    @Test func aFileCreatesAtMostTenThousandInBulk() {
        let two = "[\(Self.bulk(first: 1, count: 6_000)), \(Self.bulk(first: 6_001, count: 4_001))]"
        let e = Self.error(Self.file(two))
        #expect(e?.path == "actions[1].count", "\(String(describing: e))")
        #expect(e?.message.contains("10001 bulk-created entities") == true, "\(String(describing: e))")
        #expect(e?.location != nil)
        // Exactly 10,000 (beyond the 2,000 other entities a file may name) is accepted.
        #expect(Self.error(Self.file("[\(Self.bulk(first: 1, count: 6_000)), \(Self.bulk(first: 6_001, count: 4_000))]")) == nil)
    }

    @Test(arguments: [
        (#"{"pushBatchSize": 0}"#, "options.pushBatchSize", "rows per push batch in 1…100000, got 0"),
        (#"{"pullPageSize": 100001}"#, "options.pullPageSize", "rows per pull page in 1…100000, got 100001"),
        (#"{"pushPullIdempotentCreates": 1}"#, "options.pushPullIdempotentCreates", "expected true or false"),
    ])
    func hostileBatchOptionsAreLocated(_ options: String, _ path: String, _ words: String) {
        let e = Self.error(Self.file("[]", options: options))
        #expect(e?.path == path, "\(String(describing: e))")
        #expect(e?.description.contains(words) == true, "\(String(describing: e))")
    }

    @Test func oneWritePerEntityOneLineOfStory() throws {
        let text = Self.file("[\(Self.bulk(first: 4, count: 20))]", options: #"{"clients": 1, "pushBatchSize": 5, "pullPageSize": 3}"#)
        let sc = try Scenario.decode(Data(text.utf8), file: "f.json")
        let compiled = try sc.schedule.compile()
        guard case .bulk(let c, let ws)? = compiled.entries.last?.step else { Issue.record("no bulk step"); return }
        #expect(c == ClientID(0) && ws.count == 20 && compiled.writeCount == 20)
        #expect(ws.map { $0.ops[0].entity.raw } == Array(4...23))
        // Round trip through the file format, options included.
        let again = try JSONDecoder().decode(Schedule.self, from: JSONEncoder().encode(sc.schedule))
        #expect(again == sc.schedule)
        #expect(again.options.strategy.pushBatchSize == 5 && again.options.strategy.pullPageSize == 3)
        let r = try Simulator.run(PushPullStrategy(), sc.schedule, seed: 1, trace: .full)
        let told = r.trace.filter { $0.kind == .action }
        #expect(told.count == 1 && told[0].text.contains("creates 20 todos #4…#23 in bulk (w0…w19)"), "\(told.map(\.text))")
        #expect(r.history.intents.count == 20)
        #expect(r.server.ids == (4...23).map { EntityID(UInt32($0)) })
        #expect(r.violations.isEmpty, "\(r.violations)")
    }

    @Test func sparseBulkIdsAreRenumberedAndStayConsecutive() throws {
        let create = #"{"at": 5, "do": "create", "client": "B", "entity": 900000, "namespace": "todos", "set": {}}"#
        let sc = try Scenario.decode(Data(Self.file("[\(create), \(Self.bulk(first: 50_000, count: 3))]").utf8), file: "f.json")
        #expect(sc.schedule.actions.map { $0.action.entities.map(\.raw) } == [[4], [1, 2, 3]])
        _ = try sc.schedule.compile()
    }

    @Test func theShrinkerTriesFewerEntities() {
        let a = Action.bulkCreate(ClientID(0), firstEntity: EntityID(1), count: 10, .todos, [FieldAssignment(.title, .string("xy"))])
        let counts = Shrinker.simpler(a).compactMap { if case .bulkCreate(_, _, let n, _, _) = $0 { return n } else { return nil } }
        #expect(Array(counts.prefix(3)) == [1, 5, 9])
        #expect(Shrinker.impossibleActions(Schedule(actions: [TimedAction(at: 0, a), TimedAction(at: 1, .update(ClientID(0), EntityID(10), [FieldAssignment(.done, .bool(true))]))])).isEmpty)
    }

    @Test func theGeneratorDrawsBulkOnlyWhenAskedAndMovesNothingElse() throws {
        var on = WorkloadGenerator.Config()
        on.bulk = true
        for seed: UInt64 in 0..<10 {
            let plain = WorkloadGenerator().generate(seed: seed)
            let with = WorkloadGenerator(on).generate(seed: seed)
            #expect(!plain.actions.contains { $0.action.kind == .bulkCreate })
            #expect(with.actions.contains { $0.action.kind == .bulkCreate })
            #expect(with.actions.filter { $0.action.kind != .bulkCreate } == plain.actions)
            #expect(zip(with.actions, with.actions.dropFirst()).allSatisfy { $0.at <= $1.at })
            #expect(plain.options.strategy.pushBatchSize == 100_000 && with.options.strategy.pushBatchSize <= 8)
            _ = try with.compile()
        }
    }
}

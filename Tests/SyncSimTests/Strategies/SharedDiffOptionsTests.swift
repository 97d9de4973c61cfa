import Foundation
import Testing
@testable import SyncSim

/// `sharedDiff`'s two seed-001 options, each against its scenario file with the option flipped:
/// the file's outcome comes from the option, not from something else in the schedule.
@Suite struct SharedDiffOptionsTests {
    static func scenario(_ file: String) throws -> Scenario {
        try Scenario.load(path: ScenarioLibraryTests.root.appendingPathComponent(file).path)
    }

    /// Traversal through every known entity re-sends post#4 (known only from the other
    /// collection) and overwrites B's edit; traversal within the collection does not.
    @Test func traversalThroughKnownEntitiesResendsTheAuthorsOtherPosts() throws {
        var s = try Self.scenario("nested/traversal-resends-authors-whole-posts.json")
        #expect(s.schedule.options.strategy.sharedDiffTraverseKnown)
        let on = try simulate(SharedDiffStrategy(), s.schedule, seed: s.seed)
        #expect(on.violations.contains { $0.invariant == .disjointFieldMerge && $0.entity == EntityID(4) })
        let resent = on.history.applied.contains { a in
            a.tx.origin == .client(ClientID(0)) && a.tx.ops.contains { $0.entity == EntityID(4) }
        }
        #expect(resent, "A's save must carry post#4")
        s.schedule.options.strategy.sharedDiffTraverseKnown = false
        let off = try simulate(SharedDiffStrategy(), s.schedule, seed: s.seed)
        #expect(off.violations.isEmpty, "\(off.violations.map(\.invariant.rawValue))")
        #expect(!off.history.applied.contains { a in a.tx.origin == .client(ClientID(0)) && a.tx.ops.contains { $0.entity == EntityID(4) } })
    }

    /// Non-atomic: A's save lands as several transactions, one of them refused (the link to the
    /// author B deleted in between); atomic: one transaction. Both end with the edit applied.
    @Test func nonAtomicSavesApplyInPiecesAndOneIsRefused() throws {
        var s = try Self.scenario("nested/partial-save-non-atomic.json")
        #expect(!s.schedule.options.strategy.sharedDiffAtomicSaves)
        func fromA(_ r: RunResult) -> [History.Applied] { r.history.applied.filter { $0.tx.origin == .client(ClientID(0)) } }
        let pieces = try simulate(SharedDiffStrategy(), s.schedule, seed: s.seed)
        #expect(fromA(pieces).count == 2, "Alice's upsert and the post's edit apply, the link does not")
        #expect(fromA(pieces).allSatisfy { $0.tx.ops.count == 1 })
        #expect(pieces.server[EntityID(3)]?[FieldID.content] == .string("edited"))
        #expect(pieces.server[EntityID(3)]?[LinkID.author] == nil)
        #expect(pieces.violations.isEmpty)
        s.schedule.options.strategy.sharedDiffAtomicSaves = true
        let whole = try simulate(SharedDiffStrategy(), s.schedule, seed: s.seed)
        #expect(fromA(whole).count == 1 && fromA(whole)[0].tx.ops.count == 3)
        #expect(whole.server[EntityID(3)]?[FieldID.content] == .string("edited"))
    }

    /// The options are written only when they differ from the default, and read back.
    @Test func optionsRoundTripAndDefaultToTodaysBehaviour() throws {
        #expect(StrategyOptions().sharedDiffAtomicSaves && !StrategyOptions().sharedDiffTraverseKnown)
        var o = SimulationOptions()
        let plain = String(decoding: try JSONEncoder().encode(o), as: UTF8.self)
        #expect(!plain.contains("sharedDiff"))
        o.strategy.sharedDiffAtomicSaves = false
        o.strategy.sharedDiffTraverseKnown = true
        let back = try JSONDecoder().decode(SimulationOptions.self, from: try JSONEncoder().encode(o))
        #expect(back.strategy == o.strategy)
    }
}

import Foundation
import Testing
@testable import SyncSim

/// Generated schedules with the richer queries (conditions, limits, include trees through link
/// cycles) under every built-in strategy: no strategy breaks its contract. A few seeds in
/// `swift test`; `SYNCSIM_RICH_SWEEP=300 swift test --filter RichQuerySweepTests` for a sweep,
/// which also prints every (strategy, invariant) count with and without the richer queries, so
/// a violation they bring can be traced (is the oracle or the strategy wrong?).
@Suite struct RichQuerySweepTests {
    static var seeds: Int { ProcessInfo.processInfo.environment["SYNCSIM_RICH_SWEEP"].flatMap(Int.init) ?? 3 }

    /// Counts of violations per "strategy invariant", and the contract violations found.
    static func sweep(_ config: WorkloadGenerator.Config, seeds: Int) throws -> (counts: [String: Int], broken: [String]) {
        var counts: [String: Int] = [:]
        var broken: [String] = []
        let generator = WorkloadGenerator(config)
        for seed in 0..<UInt64(seeds) {
            let schedule = generator.generate(seed: seed)
            for s in AnyStrategy.builtIns {
                let r = try simulate(s.base, schedule, seed: seed)
                for inv in Set(r.violations.map(\.invariant)).sorted(by: { $0.rawValue < $1.rawValue }) {
                    counts["\(s.name) \(inv.rawValue)", default: 0] += 1
                    if s.info.claims(inv, under: schedule.options) { broken.append("\(s.name) seed \(seed) \(inv.rawValue)") }
                }
            }
        }
        return (counts, broken)
    }

    @Test func blogSchemaRunsKeepEveryContract() throws {
        var c = WorkloadGenerator.Config(schema: .blog)
        c.actions = 60
        let (counts, broken) = try Self.sweep(c, seeds: Self.seeds)
        #expect(broken.isEmpty, "\(broken)")
        if Self.seeds > 3 { print("blog:", counts.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")) }
    }

    @Test func richQueriesOnTheDefaultSchemaKeepEveryContract() throws {
        var rich = WorkloadGenerator.Config()
        rich.richQueries = true
        let (withRich, broken) = try Self.sweep(rich, seeds: Self.seeds)
        #expect(broken.isEmpty, "\(broken)")
        if Self.seeds > 3 {
            let (plain, _) = try Self.sweep(WorkloadGenerator.Config(), seeds: Self.seeds)
            for k in Set(withRich.keys).union(plain.keys).sorted() where withRich[k] != plain[k] {
                print("default rich vs plain: \(k) \(plain[k] ?? 0) -> \(withRich[k] ?? 0)")
            }
        }
    }

    /// The generator draws the richer forms when asked, and only then on the default schema.
    @Test func richFormsAreDrawnOnlyWhenAsked() {
        func subscribed(_ c: WorkloadGenerator.Config) -> [Query] {
            (0..<20).flatMap { seed in
                WorkloadGenerator(c).generate(seed: UInt64(seed)).actions.compactMap { a -> Query? in
                    if case .subscribe(_, _, let q) = a.action { return q } else { return nil }
                }
            }
        }
        let plain = subscribed(WorkloadGenerator.Config())
        #expect(plain.allSatisfy { $0.isBasic })
        var rich = WorkloadGenerator.Config()
        rich.richQueries = true
        let drawn = subscribed(rich)
        #expect(drawn.contains { $0.limit != nil } && drawn.contains { $0.condition != nil } && drawn.contains { $0.includeDepth == QueryLimits.includeDepth })
        let blog = subscribed(WorkloadGenerator.Config(schema: .blog))
        #expect(blog.contains { $0.includeDepth == QueryLimits.includeDepth })
    }

    /// The blog's menu holds seed 001's cycle, so fuzzing the blog reaches it.
    @Test func theBlogMenuHoldsSeed001sCycle() {
        let menu = Schema.$describing.withValue(.blog) { Query.richMenu(.blog).map(\.description) }
        #expect(menu.contains("posts with author { posts { comments { commenter } } }"), "\(menu)")
    }
}

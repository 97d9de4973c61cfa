import Foundation
import Testing
@testable import SyncSim

/// The library fuzz driver with user invariants: their failures are shrunk like the built-ins',
/// their cells and columns follow one deterministic order whatever order strategies and
/// invariants were given in, and bad combinations are refused before anything runs.
@Suite struct UserInvariantFuzzTests {
    static let noDeleteID = try! InvariantID(custom: "noDelete")
    /// Broken at seeds 1 and 2 of the default generator (the server applies deletes there).
    static let noDelete = try! CustomInvariant(id: noDeleteID, summary: "the server never applies a delete") { run in
        run.applied.flatMap { a in a.tx.ops.filter(\.isDelete).map { Violation(noDeleteID, at: a.time, entity: $0.entity, "tx \(a.tx.txID) deleted it") } }
    }
    /// Never broken: checked, and holds.
    static let alwaysHolds = try! CustomInvariant("alwaysHolds", summary: "nothing to see") { _ in [] }

    static func report(_ strategies: [AnyStrategy], seeds: Range<UInt64> = 0..<3, shrink: Bool = false) throws -> FuzzReport {
        try FuzzDriver(strategies: strategies, configuration: FuzzDriverTests.configuration(seeds, shrink: shrink)).run().report
    }

    @Test func userInvariantFailuresAreShrunkAndJudgedByTheContract() throws {
        let claims = AnyStrategy(Relabelled(InstantStrategy(), name: "claims", contract: [.convergence, Self.noDeleteID])).judged(by: [Self.noDelete])
        let r = try Self.report([claims], shrink: true)
        #expect(!r.allContractsMet)
        let s = r.strategies[0]
        #expect(s.contract == ["convergence", "noDelete"])
        #expect(s.contractViolations == ["noDelete"])
        let cell = try #require(s.cells.first { $0.invariant == "noDelete" })
        #expect(cell.claimed && cell.violations == 2 && cell.firstSeed == 1)
        let f = try #require(r.failures.first { $0.invariant == "noDelete" })
        #expect(f.claimed && f.seed == 1)
        #expect((f.shrunkActions ?? 99) <= 3, "\(f)")
        #expect(!f.trace.isEmpty)
        #expect(JUnitReport.render(r).contains("user invariant: the server never applies a delete"))
    }

    /// Columns: built-ins in catalog order, then user ids sorted; a strategy not judged by an
    /// invariant has no cell for it ("not checked", never "held"). The report does not depend on
    /// the order strategies' invariants were given in.
    @Test func columnsAreDeterministicAndUnjudgedStrategiesHaveNoCell() throws {
        let a = AnyStrategy(Relabelled(InstantStrategy(), name: "a", contract: [])).judged(by: [Self.noDelete])
        let b = AnyStrategy(Relabelled(ReferenceStrategy(), name: "b", contract: [])).judged(by: [Self.noDelete, Self.alwaysHolds])
        let bReversed = AnyStrategy(Relabelled(ReferenceStrategy(), name: "b", contract: [])).judged(by: [Self.alwaysHolds, Self.noDelete])
        let r = try Self.report([a, b])
        #expect(r.invariantColumns == InvariantID.builtIns.map(\.rawValue) + ["alwaysHolds", "noDelete"])
        #expect(r.userInvariants.map(\.id) == ["alwaysHolds", "noDelete"])
        #expect(!r.strategies[0].cells.contains { $0.invariant == "alwaysHolds" })
        #expect(r.strategies[1].cells.first { $0.invariant == "alwaysHolds" }?.violations == 0)
        #expect(r.allContractsMet)   // unclaimed failures are expected
        #expect(MarkdownReport.render(r).contains("| `alwaysHolds` (user) | – |  0/3 |"))
        #expect(try FuzzDriverTests.canonical(r) == FuzzDriverTests.canonical(Self.report([a, bReversed])))
    }

    /// A report judged by the built-ins alone has no trace of user invariants in its JSON, and a
    /// description decodes without the key (reports written before user invariants existed).
    @Test func reportsWithoutUserInvariantsCarryNoUserKeys() throws {
        let r = try Self.report([AnyStrategy(InstantStrategy())])
        #expect(r.userInvariants.isEmpty)
        #expect(!(try ReportWriter.json(r)).contains("userInvariants"))
        #expect(!MarkdownReport.render(r).contains("(user)") && !HTMLReport.render(r).contains("inv user"))
        let d = try JSONDecoder().decode(FuzzReport.StrategyDescription.self, from: Data(
            #"{"name":"x","summary":"","knownBad":false,"arbitration":"serverArrival","contract":["convergence"]}"#.utf8))
        #expect(d.userInvariants.isEmpty)
        #expect(!String(decoding: try JSONEncoder().encode(d), as: UTF8.self).contains("userInvariants"))
    }

    @Test func badInvariantCombinationsAreRefusedUpFront() throws {
        let base = AnyStrategy(Relabelled(InstantStrategy(), name: "s", contract: []))
        let other = AnyStrategy(Relabelled(ReferenceStrategy(), name: "t", contract: []))
        let twin = try CustomInvariant("noDelete", summary: "a different rule") { _ in [] }

        #expect(throws: FuzzConfigurationError.invalidInvariants(strategy: "s", .duplicateID(Self.noDeleteID))) {
            try FuzzDriver(strategies: [base.judged(by: [Self.noDelete, twin])])
        }
        #expect(throws: FuzzConfigurationError.invariantsDiffer(Self.noDeleteID, firstStrategy: "s", secondStrategy: "t")) {
            try FuzzDriver(strategies: [base.judged(by: [Self.noDelete]), other.judged(by: [twin])])
        }
        // The same invariant judging two strategies is fine.
        _ = try FuzzDriver(strategies: [base.judged(by: [Self.noDelete]), other.judged(by: [Self.noDelete])])

        let shadow = try CustomInvariant("Liveness", summary: "looks like the built-in") { _ in [] }
        #expect(throws: FuzzConfigurationError.invariantIDsEqualIgnoringCase("liveness", "Liveness")) {
            try FuzzDriver(strategies: [base.judged(by: [shadow])])
        }

        let claimsUnjudged = AnyStrategy(Relabelled(InstantStrategy(), name: "c", contract: [Self.noDeleteID]))
        #expect(throws: FuzzConfigurationError.unjudgedClaim(strategy: "c", invariant: Self.noDeleteID, suggestion: nil)) {
            try FuzzDriver(strategies: [claimsUnjudged])
        }
        let typoID = try InvariantID(custom: "noDelet")
        let typo = AnyStrategy(Relabelled(InstantStrategy(), name: "c", contract: [typoID])).judged(by: [Self.noDelete])
        do {
            _ = try FuzzDriver(strategies: [typo])
            Issue.record("a claim of an invariant nobody judges was accepted")
        } catch let e as FuzzConfigurationError {
            #expect(e == .unjudgedClaim(strategy: "c", invariant: typoID, suggestion: "noDelete"))
            #expect("\(e)".contains("claims invariant 'noDelet' (did you mean 'noDelete'?)"))
        }

        // "notes" × "a-b" and "notes-a" × "b" would both write notes-a-b-seedN.json.
        let ab = try CustomInvariant("a-b", summary: "x") { _ in [] }, b = try CustomInvariant("b", summary: "y") { _ in [] }
        let notes = AnyStrategy(Relabelled(InstantStrategy(), name: "notes", contract: [])).judged(by: [ab])
        let notesA = AnyStrategy(Relabelled(InstantStrategy(), name: "notes-a", contract: [])).judged(by: [b])
        #expect(throws: FuzzConfigurationError.scenarioFilesCollide("notes/a-b", "notes-a/b")) {
            try FuzzDriver(strategies: [notes, notesA])
        }
    }

    /// Shards disagreeing on a user invariant's summary are shards of different tools.
    @Test func mergeRefusesShardsThatDescribeAUserInvariantDifferently() throws {
        let s = AnyStrategy(Relabelled(InstantStrategy(), name: "s", contract: [])).judged(by: [Self.noDelete])
        var dirs: [String] = []
        for k in 1...2 {
            var config = FuzzDriverTests.configuration(0..<4)
            config.shard = try Shard(k, of: 2)
            config.reportDirectory = FuzzDriverTests.tmp("uinv-merge-\(k)")
            _ = try FuzzDriver(strategies: [s], configuration: config).run()
            dirs.append(config.reportDirectory!)
        }
        let ok = try ReportMerger.merge(dirs, into: FuzzDriverTests.tmp("uinv-merge-ok"))
        #expect(ok.userInvariants == [.init(id: "noDelete", summary: "the server never applies a delete")])
        #expect(ok.strategies[0].cells.first { $0.invariant == "noDelete" }?.violations == 2)

        var edited = try ReportWriter.load(dirs[1])
        edited.strategies[0].userInvariants = [.init(id: "noDelete", summary: "something else")]
        try AtomicFile.write(try ReportWriter.json(edited), to: "\(dirs[1])/report.json")
        #expect { try ReportMerger.merge(dirs, into: FuzzDriverTests.tmp("uinv-merge-bad")) } throws: { e in
            "\(e)".contains("strategy 's' is described differently") && "\(e)".contains("user invariants")
        }
    }

    /// A user's summary is text: it cannot break a Markdown table or inject HTML.
    @Test func summariesAreEscapedInEveryRendering() throws {
        let hostile = try CustomInvariant("hostile", summary: "a | b <script>alert(1)</script> & \"q\"") { _ in [] }
        let r = try Self.report([AnyStrategy(InstantStrategy()).judged(by: [hostile])], seeds: 0..<1)
        let md = MarkdownReport.render(r)
        #expect(md.contains("| `hostile` | a \\| b &lt;script&gt;alert(1)&lt;/script&gt; &amp; \"q\" |"), "\(md)")
        let html = HTMLReport.render(r)
        #expect(!html.contains("<script>") && html.contains("a | b &lt;script&gt;"))
        #expect(!JUnitReport.render(r).contains("<script>"))
    }
}

import Foundation
import Testing
@testable import SyncSim

/// The failure database through the library driver: known failures are replayed before the
/// seeds and classified (fixed by a strategy change, still failing), the run's other failures are
/// new, and saved ones are known the next time.
@Suite struct FailureDatabaseTests {
    /// Instant's machines resurrect deleted entities (seed 1): "notes" before its fix.
    static let brokenNotes = AnyStrategy(Relabelled(InstantStrategy(), name: "notes", contract: [.noResurrection]))
    /// The same strategy name after the fix (the reference machines keep every invariant).
    static let fixedNotes = AnyStrategy(Relabelled(ReferenceStrategy(), name: "notes", contract: [.noResurrection]))
    /// Known-bad and saying so: claims nothing, so its failures are expected.
    static let legacy = AnyStrategy(Relabelled(InstantStrategy(), name: "legacy", contract: []))

    static func folder(_ name: String) -> String {
        let p = FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-faildb-\(getpid())-\(name)").path
        try? FileManager.default.removeItem(atPath: p)
        return p
    }

    /// A recorded failure: seed `seed`'s schedule, expected to fail `invariant` under `strategy`.
    static func record(_ strategy: AnyStrategy, _ invariant: InvariantID, seed: UInt64, in folder: String) throws {
        let sc = Scenario(title: "\(strategy.name) violates \(invariant.rawValue)", description: "", strategy: strategy.name,
                          expect: [strategy.name: .fails(invariant)], origin: .init(seed: seed), schedule: strategy.schedule(seed: seed))
        try AtomicFile.write(try sc.encoded(), to: "\(folder)/\(FailureDatabase.fileName(strategy: strategy.name, invariant: invariant.rawValue, seed: seed))")
    }

    static func configuration(_ seeds: Range<UInt64>, _ db: FailureDatabase, save: Bool = false, shrink: Bool = true) -> FuzzConfiguration {
        var c = FuzzConfiguration(seeds: SeedRange(seeds), jobs: 2, shrink: shrink, shrinkMaxRuns: 60)
        c.explainMaxRuns = 0
        c.failureDatabase = db
        c.saveNewFailures = save
        return c
    }

    @Test func fixedStillFailingAndNewAreToldApartAndNewOnesAreSaved() throws {
        let dir = Self.folder("three")
        try Self.record(Self.brokenNotes, .noResurrection, seed: 1, in: dir)
        try Self.record(Self.legacy, .noResurrection, seed: 1, in: dir)
        let db = try FailureDatabase.load(folder: dir, strategies: ["notes", "legacy"], mustExist: true)
        #expect(db.entries.map { ($0.file as NSString).lastPathComponent } == ["legacy-noResurrection-seed1.json", "notes-noResurrection-seed1.json"])

        // After the fix, seed 3's schedule: legacy breaks more than the database knows.
        let r = try FuzzDriver(strategies: [Self.fixedNotes, Self.legacy], configuration: Self.configuration(3..<4, db, save: true)).run().report
        let report = try #require(r.failureDatabase)
        let status = Dictionary(uniqueKeysWithValues: report.known.map { ($0.strategy, $0.status) })
        #expect(status == ["notes": .fixed, "legacy": .stillFailing])
        #expect(!report.breaksContract)   // legacy claims nothing
        let legacyFound = r.failures.filter { $0.strategy == "legacy" }.map(\.invariant)
        #expect(!legacyFound.isEmpty)
        // Every failure of this run is new except legacy's noResurrection, which the database holds.
        #expect(report.new.map(\.invariant) == legacyFound.filter { $0 != "noResurrection" })
        #expect(!report.new.isEmpty && report.new.allSatisfy { $0.strategy == "legacy" && $0.savedAs != nil })
        for n in report.new { #expect(FileManager.default.fileExists(atPath: n.savedAs!)) }

        // Next run: the saved failures are known, and still failing; nothing is new.
        let again = try FailureDatabase.load(folder: dir, strategies: ["notes", "legacy"], mustExist: true)
        #expect(again.entries.count == 2 + report.new.count)
        let r2 = try FuzzDriver(strategies: [Self.fixedNotes, Self.legacy], configuration: Self.configuration(3..<4, again, shrink: false)).run().report
        let db2 = try #require(r2.failureDatabase)
        #expect(db2.new.isEmpty)
        #expect(db2.stillFailing.count == 1 + report.new.count && db2.fixed.map(\.strategy) == ["notes"])
    }

    @Test func aKnownContractFailureCountsEvenWhenFreshSeedsMissIt() throws {
        let dir = Self.folder("contract")
        try Self.record(Self.brokenNotes, .noResurrection, seed: 1, in: dir)
        let db = try FailureDatabase.load(folder: dir, strategies: ["notes"], mustExist: true)
        // Seed 0 does not resurrect anything: the fresh seeds alone would call this green.
        let r = try FuzzDriver(strategies: [Self.brokenNotes], configuration: Self.configuration(0..<1, db, shrink: false)).run().report
        #expect(r.allContractsMet)
        let known = try #require(r.failureDatabase?.known.first)
        #expect(known.status == .stillFailing && known.breaksContract)
    }

    @Test func badFilesAndFoldersAreErrorsThatNameThem() throws {
        let dir = Self.folder("bad")
        try AtomicFile.write("{\"format\": 1, \"title\": 3}", to: "\(dir)/x.json")
        #expect(throws: ScenarioError.self) { try FailureDatabase.load(folder: dir, strategies: nil, mustExist: true) }
        do {
            _ = try FailureDatabase.load(folder: dir, strategies: nil, mustExist: true)
        } catch let e as ScenarioError {
            #expect(e.description.contains("x.json:1:") && e.description.contains("title"), "\(e)")
        }
        // The default folder before the first failure: empty, not an error; a named one must exist.
        #expect(try FailureDatabase.load(folder: "\(dir)/none", strategies: nil, mustExist: false).entries.isEmpty)
        #expect(throws: ScenarioError.self) { try FailureDatabase.load(folder: "\(dir)/none", strategies: nil, mustExist: true) }
    }
}

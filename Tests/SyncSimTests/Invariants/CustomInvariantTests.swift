import Foundation
import Testing
import SyncSim   // not @testable: user invariants must be writable with the public API alone

/// User invariants: defined from outside the library, judged from the public run record, peers
/// of the built-ins in results, catalogs and contracts — and unable to change a run or to speak
/// for a built-in.
@Suite struct CustomInvariantTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B
    static let forbiddenID = try! InvariantID(custom: "noForbiddenTitle")

    /// "No todo's title is ever 'forbidden'", judged over the server's transaction log.
    static let noForbiddenTitle = try! CustomInvariant(id: forbiddenID, summary: "no todo's title is ever 'forbidden'") { run in
        var out: [Violation] = []
        for a in run.applied {
            for op in a.tx.ops where op.namespace(in: run.schedule.schema) == .todos {
                for x in op.assignments where x.field == .title && x.value == .string("forbidden") {
                    out.append(Violation(forbiddenID, at: a.time, entity: op.entity,
                                         "tx \(a.tx.txID) from \(a.tx.origin) set \(op.entity.raw).title = 'forbidden'"))
                }
            }
        }
        return out
    }

    func titleWrite(_ title: String) -> [TimedAction] {
        F.subscribeTodos + [TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string(title))))]
    }

    // MARK: - Failing and holding

    @Test func aCustomInvariantFailsOnARunThatBreaksIt() throws {
        let r = try F.run(InstantStrategy(), titleWrite("forbidden"), invariants: [Self.noForbiddenTitle])
        let mine = r.violations.filter { $0.invariant == Self.forbiddenID }
        #expect(mine.count == 1, "\(r.violations)")
        #expect(mine.first?.entity == F.todo)
        #expect(mine.first?.client == nil)
        // The time is the server's commit time, from the applied log.
        let applied = r.history.applied.first { $0.tx.ops.contains { $0.entity == F.todo } }
        #expect(mine.first?.time == applied?.time)
        #expect(r.violatedInvariants == [Self.forbiddenID])
        #expect(r.customInvariants == [Self.forbiddenID])
        // An admin write is in the same log and is caught the same way.
        let admin = try F.run(InstantStrategy(), F.subscribeTodos + [TimedAction(at: 500, .serverUpdate(F.todo, F.set(.title, .string("forbidden"))))],
                              invariants: [Self.noForbiddenTitle])
        #expect(admin.violates(Self.forbiddenID), "\(admin.violations)")
    }

    @Test func aCustomInvariantHoldsOnARunThatKeepsIt() throws {
        let r = try F.run(InstantStrategy(), titleWrite("allowed"), invariants: [Self.noForbiddenTitle])
        #expect(r.violations.isEmpty, "\(r.violations)")
        #expect(r.customInvariants == [Self.forbiddenID])   // checked, and held
        #expect(r.server[F.todo]?[.title] == .string("allowed"))
    }

    /// Built-in verdicts are unchanged by a user invariant, failing or not, and the two kinds of
    /// violation sort together deterministically.
    @Test func builtInVerdictsAreUnchangedAndViolationsAreSorted() throws {
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("forbidden")))),
            TimedAction(at: 1_200, .serverUpdate(F.todo, F.set(.done, .bool(true)))),
            TimedAction(at: 2_000, .goOnline(A)),
        ]
        let plain = try F.run(FullEntityStrategy(), actions)
        #expect(plain.violates(.disjointFieldMerge))
        let judged = try F.run(FullEntityStrategy(), actions, invariants: [Self.noForbiddenTitle])
        #expect(judged.violations.filter { $0.invariant.isBuiltIn } == plain.violations)
        #expect(judged.violates(Self.forbiddenID))
        #expect(judged.violations == judged.violations.sorted())
        #expect(judged.violatedInvariants == [.disjointFieldMerge, Self.forbiddenID])
    }

    // MARK: - Observations

    /// "No screen ever shows a todo titled 'forbidden'": needs what subscriptions yielded.
    static let neverShown = try! CustomInvariant("neverShowsForbidden", summary: "no subscription ever shows a todo titled 'forbidden'",
                                                 needsObservations: true) { run in
        run.observations.compactMap { o in
            guard let r = o.result, let e = r.entries.first(where: { $0.record[.title] == .string("forbidden") }) else { return nil }
            return Violation(try! InvariantID(custom: "neverShowsForbidden"), at: o.time, client: o.client, entity: e.id,
                             "\(o.subscription) showed it")
        }
    }

    @Test func observationsAreRecordedOnlyWhenAnInvariantAsks() throws {
        let none = try F.run(InstantStrategy(), titleWrite("x"))
        #expect(!none.history.recordsObservations && none.history.observations.isEmpty)
        let notAsking = try F.run(InstantStrategy(), titleWrite("x"), invariants: [Self.noForbiddenTitle])
        #expect(!notAsking.history.recordsObservations && notAsking.history.observations.isEmpty)

        let asking = try F.run(InstantStrategy(), titleWrite("x"), invariants: [Self.noForbiddenTitle, Self.neverShown])
        #expect(asking.history.recordsObservations)
        let obs = asking.history.observations
        // One observation per yield the users were told about, in the same order.
        let yields = asking.history.told.filter { if case .subscriptionYielded = $0.event { return true } else { return false } }
        #expect(obs.count == yields.count && !obs.isEmpty)
        #expect(zip(obs, yields).allSatisfy { $0.time == $1.time && $0.client == $1.client })
        #expect(obs.allSatisfy { $0.query == Query(.todos) })
        // A's own write shows at once on A's screen; B sees it later; both end on the server's data.
        let firstX = obs.first { $0.result?.record(F.todo)?[.title] == .string("x") }
        #expect(firstX?.client == A && firstX?.time == 1_000)
        #expect(obs.contains { $0.client == B && $0.result?.record(F.todo)?[.title] == .string("x") })
        #expect(asking.violations.isEmpty, "\(asking.violations)")

        let shown = try F.run(InstantStrategy(), titleWrite("forbidden"), invariants: [Self.neverShown])
        let v = shown.violations.filter { $0.invariant.rawValue == "neverShowsForbidden" }
        #expect(v.first?.client == A && v.first?.time == 1_000, "\(shown.violations)")
        #expect(v.contains { $0.client == B })
    }

    // MARK: - A user oracle cannot speak for another invariant

    @Test func violationsUnderAnotherIDAreRelabelled() throws {
        let forger = try CustomInvariant("forger", summary: "tries to report built-in and foreign violations") { run in
            [Violation(.convergence, at: 5, "claims convergence broke"),
             Violation(.liveness, at: 6, "claims liveness broke"),
             Violation(try! InvariantID(custom: "someoneElse"), at: 7, "claims another user invariant broke"),
             Violation(try! InvariantID(custom: "forger"), at: 8, client: ClientID(7), "line one\nline two"),
             Violation(try! InvariantID(custom: "forger"), at: 9, "  ")]
        }
        let r = try F.run(InstantStrategy(), titleWrite("x"), invariants: [forger])
        #expect(!r.violates(.convergence) && !r.violates(.liveness), "\(r.violations)")
        #expect(!r.violations.contains { $0.invariant.rawValue == "someoneElse" })
        #expect(r.violations.count == 5)
        #expect(r.violations.allSatisfy { $0.invariant.rawValue == "forger" })
        #expect(r.violations.map(\.time) == [5, 6, 7, 8, 9])
        #expect(r.violations[0].explanation.contains("reported by the oracle as 'convergence'"))
        #expect(r.violations[0].explanation.hasSuffix("claims convergence broke"))
        #expect(r.violations[2].explanation.contains("'someoneElse'"))
        // Made printable: no client the run does not have, no line breaks, never empty.
        #expect(r.violations[3].client == nil && r.violations[3].explanation.contains("client index 7"))
        #expect(!r.violations[3].explanation.contains("\n") && r.violations[3].explanation.hasSuffix("line one line two"))
        #expect(r.violations[4].explanation == "(the oracle gave no explanation)")
        // The forged built-in violations do not count against a contract over built-ins.
        #expect(Set(r.violations.map(\.invariant)).isDisjoint(with: InvariantID.builtIns))
    }

    @Test func aUserInvariantsViolationsAreCappedLikeABuiltIns() throws {
        let noisy = try CustomInvariant("noisy", summary: "always fails, loudly") { _ in
            (0..<100).reversed().map { Violation(try! InvariantID(custom: "noisy"), at: Int64($0), "n\($0)") }
        }
        let r = try F.run(InstantStrategy(), titleWrite("x"), invariants: [noisy])
        #expect(r.violations.count == 20)
        #expect(r.violations.map(\.time) == Array(0..<20))   // the earliest, sorted
    }

    // MARK: - Ids and definitions

    @Test func userIDsAreValidatedAsValues() {
        func error(_ s: String) -> InvariantError? {
            do { _ = try InvariantID(custom: s); return nil } catch { return error }
        }
        #expect(error("") == .emptyID)
        #expect(error("has space") == .invalidCharacter(id: "has space", " "))
        #expect(error("slash/y") == .invalidCharacter(id: "slash/y", "/"))
        #expect(error("café") == .invalidCharacter(id: "café", "é"))
        #expect(error("line\nbreak") == .invalidCharacter(id: "line\nbreak", "\n"))
        #expect(error(String(repeating: "a", count: 65)) == .idTooLong(id: String(repeating: "a", count: 65), length: 65))
        #expect(error(String(repeating: "a", count: 64)) == nil)
        #expect(error("ok_Name-1.2") == nil)
        for b in InvariantID.builtIns { #expect(error(b.rawValue) == .shadowsBuiltIn(b.rawValue)) }
        // Malformed raw values are not ids at all; well-formed ones are, built-in or not.
        #expect(InvariantID(rawValue: "") == nil && InvariantID(rawValue: "a b") == nil)
        #expect(InvariantID(rawValue: "mine")?.isBuiltIn == false)
        #expect(InvariantID(builtIn: "mine") == nil && InvariantID(builtIn: "liveness") == .liveness)
        #expect(InvariantError.shadowsBuiltIn("convergence").description.contains("built-in"))
    }

    @Test func definitionsAreValidatedAsValues() {
        func error(_ make: () throws -> CustomInvariant) -> InvariantError? {
            do { _ = try make(); return nil } catch { return error as? InvariantError }
        }
        let ok: @Sendable (RunHistory) -> [Violation] = { _ in [] }
        #expect(error { try CustomInvariant(id: .convergence, summary: "shadow", oracle: ok) } == .shadowsBuiltIn("convergence"))
        #expect(error { try CustomInvariant("liveness", summary: "shadow", oracle: ok) } == .shadowsBuiltIn("liveness"))
        let id = try! InvariantID(custom: "x")
        #expect(error { try CustomInvariant(id: id, summary: " ", oracle: ok) } == .emptySummary(id))
        #expect(error { try CustomInvariant(id: id, summary: "two\nlines", oracle: ok) } == .multiLineSummary(id))
        #expect(error { try CustomInvariant(id: id, summary: "one line", documentation: "may\nspan lines", oracle: ok) } == nil)
    }

    @Test func twoUserInvariantsCannotShareAnID() throws {
        let a = try CustomInvariant("same", summary: "first") { _ in [] }
        let b = try CustomInvariant("same", summary: "second") { _ in [] }
        #expect(throws: InvariantError.duplicateID(a.id)) {
            try Simulator.run(InstantStrategy(), Schedule(options: F.options(), actions: []), seed: 1, invariants: [a, b])
        }
        #expect(throws: InvariantError.duplicateID(a.id)) { try InvariantCatalog(custom: [a, b]) }
    }

    // MARK: - Order and coding of ids

    @Test func orderIsBuiltInsInCatalogOrderThenRawValue() throws {
        let b = InvariantID.builtIns
        #expect(InvariantID.allCases == b)
        #expect(b.count == 25 && Set(b).count == 25)
        #expect(b.sorted() == b && b.reversed().sorted() == b)
        let users = try ["zeta", "Alpha", "alpha", "a.b", "a-b", "a_b", "0first"].map { try InvariantID(custom: $0) }
        let all = (users + b).shuffled()
        // Built-ins first (catalog order), then user ids in byte order ("0" < "A" < "_" < "a").
        #expect(all.sorted().map(\.rawValue) == b.map(\.rawValue) + ["0first", "Alpha", "a-b", "a.b", "a_b", "alpha", "zeta"])
        let aaa = try InvariantID(custom: "aaa")
        #expect(aaa > .liveness)   // after every built-in, whatever its name
    }

    /// The raw strings are the files' and the command line's contract: spelled out here, literally.
    @Test func builtInRawValuesAreUnchangedAndCodeAsPlainStrings() throws {
        let raw = ["convergence", "disjointFieldMerge", "lwwConvergence", "noGhostDeletion", "noResurrection",
                   "typingConvergesToLastKeystroke", "noLostAcknowledgedWrite", "readYourWrites", "noDuplicateApplication",
                   "queryOnceOfflineFails", "cachedSubscriptionOffline", "noReconnectWhileOffline",
                   "nestedSubscriptionReyields", "queueCapNoSilentDrop", "toldOutcomeIsTrue", "noPhantomWrite",
                   "neverRevertOwnWrite", "clientWriteOrder", "monotonicReads", "timelyFeedback", "linkIntegrity",
                   "noRequestWhileOffline", "noDuplicateRows", "tenantIsolation", "liveness"]
        #expect(InvariantID.builtIns.map(\.rawValue) == raw)
        #expect(raw.map { InvariantID(rawValue: $0) } == InvariantID.builtIns)
        #expect(InvariantID.lwwConvergence.description == "lwwConvergence")
        #expect(InvariantID.builtIns.allSatisfy { $0.isBuiltIn })
        #expect(InvariantID.builtIns.filter { $0.isLiveness } == [.liveness])

        let e = JSONEncoder()
        e.outputFormatting = .sortedKeys
        let mine = try InvariantID(custom: "mine.v2")
        let ids = InvariantID.builtIns + [mine]
        let json = String(decoding: try e.encode(ids), as: UTF8.self)
        #expect(json == "[" + (raw + ["mine.v2"]).map { "\"\($0)\"" }.joined(separator: ",") + "]")
        let back = try JSONDecoder().decode([InvariantID].self, from: Data(json.utf8))
        #expect(back == ids)
        #expect(back.last?.isBuiltIn == false && back.first?.isBuiltIn == true)
        // As dictionary values and keys in other types' JSON, still a string.
        #expect(String(decoding: try e.encode(["k": InvariantID.noResurrection]), as: UTF8.self) == #"{"k":"noResurrection"}"#)
        // Malformed ids are refused with an error, not a trap.
        for bad in [#"""#, #""has space""#, #""\#(String(repeating: "x", count: 65))""#, "3"] {
            #expect(throws: DecodingError.self) { try JSONDecoder().decode(InvariantID.self, from: Data(bad.utf8)) }
        }
    }

    /// A well-formed id is not necessarily a known invariant: a scenario file's expectation still
    /// accepts only the built-ins, with the same error as when ids were a closed enum.
    @Test func scenarioExpectationsStillNameOnlyBuiltIns() throws {
        func scenario(_ expectation: String) -> String {
            #"{"format": 1, "title": "t", "strategy": "instant", "expect": {"instant": "\#(expectation)"}, "options": {"clients": 1}, "actions": []}"#
        }
        let ok = try Scenario.decode(Data(scenario("noGhostDeletion").utf8), file: "f.json")
        #expect(ok.expect["instant"] == .fails(.noGhostDeletion))
        for bad in ["noGhostDeletoin", "bad name"] {
            #expect { try Scenario.decode(Data(scenario(bad).utf8), file: "f.json") } throws: { e in
                "\(e)".contains("unknown expectation '\(bad)'") && "\(e)".contains("liveness")
            }
        }
    }

    // MARK: - Catalog and contracts

    @Test func theCatalogListsBuiltInsThenUserInvariants() throws {
        let z = try CustomInvariant("zLast", summary: "z summary", documentation: "longer\ntext") { _ in [] }
        let cat = try InvariantCatalog(custom: [z, Self.noForbiddenTitle])
        #expect(cat.ids == InvariantID.builtIns + [Self.forbiddenID, z.id])
        #expect(cat.entries.prefix(15).allSatisfy { $0.isBuiltIn && $0.summary == InvariantCatalog.summary($0.id) && !$0.summary.isEmpty })
        #expect(cat.entries.filter(\.isLiveness).map(\.id) == [.liveness])
        #expect(cat.entry(z.id) == .init(id: z.id, summary: "z summary", documentation: "longer\ntext", isBuiltIn: false, isLiveness: false))
        #expect(cat.entry(named: "noForbiddenTitle")?.summary == "no todo's title is ever 'forbidden'")
        #expect(cat.entry(named: "unknownButWellFormed") == nil)
        #expect(cat.customInvariant(z.id)?.summary == "z summary")
        #expect(InvariantCatalog.builtIns.ids == InvariantID.builtIns)
        #expect(try InvariantCatalog.entries(custom: []) == InvariantCatalog.builtIns.entries)
        // Built-in summaries are one line each and distinct; a non-built-in gets no invented one.
        let sums = InvariantID.builtIns.map(InvariantCatalog.summary)
        #expect(Set(sums).count == 25 && sums.allSatisfy { !$0.contains("\n") })
        #expect(InvariantCatalog.summary(Self.forbiddenID).contains("not a built-in"))
    }

    @Test func contractsMayClaimUserInvariants() {
        let info = StrategyInfo(name: "mine", summary: "a user strategy", contract: [.convergence, Self.forbiddenID],
                                arbitration: .serverArrival)
        #expect(info.contract.contains(Self.forbiddenID) && info.contract.contains(.convergence))
        #expect(!info.contract.contains(.liveness))
        #expect(info.contract.contains(InvariantID(rawValue: "noForbiddenTitle")!))
    }

    // MARK: - The run itself does not change

    /// Same trace hash, events, final data and built-in verdicts with or without user invariants
    /// (observing or not), across strategies and generated schedules; the story too.
    @Test(arguments: StrategyRegistry.names)
    func userInvariantsNeverChangeTheRun(_ name: String) throws {
        let strategy = try #require(StrategyRegistry.named(name))
        let gen = WorkloadGenerator()
        for seed: UInt64 in [0, 3, 11] {
            let s = gen.generate(seed: seed)
            let plain = try simulate(strategy, s, seed: seed)
            let judged = try simulate(strategy, s, seed: seed, invariants: [Self.noForbiddenTitle, Self.neverShown])
            #expect(judged.traceHash == plain.traceHash)
            #expect(judged.events == plain.events && judged.traceEvents == plain.traceEvents)
            #expect(judged.virtualDurationMs == plain.virtualDurationMs && judged.settled == plain.settled)
            #expect(judged.server == plain.server)
            #expect(judged.violations.filter(\.invariant.isBuiltIn) == plain.violations)
            #expect(judged.history.applied.map(\.tx) == plain.history.applied.map(\.tx))
            #expect(!judged.history.observations.isEmpty && plain.history.observations.isEmpty)
        }
        let s = gen.generate(seed: 5)
        let story = try simulate(strategy, s, seed: 5, trace: .full)
        let judgedStory = try simulate(strategy, s, seed: 5, trace: .full, invariants: [Self.neverShown])
        #expect(judgedStory.trace == story.trace && judgedStory.traceHash == story.traceHash)
    }
}

extension Fixture {
    static func run<S: SyncStrategy>(_ s: S, _ actions: [TimedAction], options: SimulationOptions = options(),
                                     invariants: [CustomInvariant]) throws -> RunResult {
        try Simulator.run(s, Schedule(options: options, initial: initial, actions: actions), seed: 1, trace: .full,
                          invariants: invariants)
    }
}

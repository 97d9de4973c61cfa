import Foundation
import Testing
@testable import SyncSim

/// The InstantDB server's combining of queued same-field transacts (`instantCombineTransacts`,
/// `InstantTransactQueue`) and the oracles' reading of it as supersession
/// (`Monitor+Supersession`).
@Suite struct InstantCombineTransactsTests {
    static let a = ClientID(0)

    static func title(_ id: UInt32, _ e: UInt32, _ text: String) -> (UInt64, WriteID, [InstantStep]) {
        (UInt64(100 + id), WriteID(id), [InstantStep(.update(EntityID(e), .todos, [FieldAssignment(.title, .string(text))]), upsert: false)])
    }

    static func transact(_ t: (UInt64, WriteID, [InstantStep])) -> ServerInput<InstantUp> {
        .received(from: a, .transact(eventID: t.0, write: t.1, steps: t.2))
    }

    /// A server with todo#1 and a session for A.
    static func server(combining: Bool) -> InstantServer {
        var s = InstantServer(clients: 1, combineTransacts: combining)
        _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32.max), ops: [.create(EntityID(1), .todos, [FieldAssignment(.title, .string("a"))])])))
        _ = s.step(.clientConnected(a))
        _ = s.step(.received(from: a, .initialize))
        return s
    }

    /// Transcript: the first transact commits at once and occupies the worker; the next two
    /// (same entity, same field) wait and combine into the later one; a write of another field
    /// waits behind them uncombined. Each worker turn commits one waiting event; the combined
    /// one is applied once, naming the earlier write as superseded, and both events get
    /// `transact-ok` with its tx id (the redundant one first).
    @Test func queuedSameFieldTransactsCombineIntoTheLatest() {
        var s = Self.server(combining: true)
        let t = InstantTransactQueue.timer(for: Self.a)
        let w0 = Self.title(0, 1, "T"), w1 = Self.title(1, 1, "Te"), w2 = Self.title(2, 1, "Tes")
        let w3 = (UInt64(103), WriteID(3), [InstantStep(.update(EntityID(1), .todos, [FieldAssignment(.priority, .int(3))]), upsert: false)])
        #expect(s.step(Self.transact(w0)) == [
            .setTimer(t, afterMs: InstantTransactQueue.handleMs),
            .applied(AppliedTransaction(txID: 2, origin: .client(Self.a), writes: [w0.1], ops: w0.2.map(\.op))),
            .send(Self.a, .transactOk(eventID: w0.0, write: w0.1, txID: 2)),
        ])
        #expect(s.step(Self.transact(w1)) == [])
        #expect(s.step(Self.transact(w2)) == [])
        #expect(s.step(Self.transact(w3)) == [])
        #expect(s.transactQueue!.waiting[0].map(\.writes) == [[w2.1], [w3.1]])
        #expect(s.step(.timerFired(t)) == [
            .setTimer(t, afterMs: InstantTransactQueue.handleMs),
            .applied(AppliedTransaction(txID: 3, origin: .client(Self.a), writes: [w2.1], ops: w2.2.map(\.op), superseded: [w1.1])),
            .send(Self.a, .transactOk(eventID: w1.0, write: w1.1, txID: 3)),
            .send(Self.a, .transactOk(eventID: w2.0, write: w2.1, txID: 3)),
        ])
        #expect(s.data[EntityID(1)]?[.title] == .string("Tes"))
        #expect(s.step(.timerFired(t)) == [
            .setTimer(t, afterMs: InstantTransactQueue.handleMs),
            .applied(AppliedTransaction(txID: 4, origin: .client(Self.a), writes: [w3.1], ops: w3.2.map(\.op))),
            .send(Self.a, .transactOk(eventID: w3.0, write: w3.1, txID: 4)),
        ])
        #expect(s.step(.timerFired(t)) == [])   // nothing waits: the worker is free
        #expect(s.transactQueue!.busy[0] == nil)
    }

    /// A failing combined transact answers every event it carries with the error; a closed
    /// session drops what waits, unanswered (the client replays it).
    @Test func combinedFailureAnswersEveryEventAndACloseDropsTheQueue() {
        var s = Self.server(combining: true)
        let t = InstantTransactQueue.timer(for: Self.a)
        _ = s.step(Self.transact(Self.title(0, 1, "T")))
        _ = s.step(Self.transact(Self.title(1, 9, "x")))   // todo#9 does not exist: update mode fails
        _ = s.step(Self.transact(Self.title(2, 9, "xy")))
        let e = s.step(.timerFired(t))
        let errors = e.compactMap { x -> UInt64? in if case .send(_, .error(let id, _, _)) = x { return id } else { return nil } }
        #expect(errors == [101, 102])
        #expect(e.contains { if case .refused(_, [WriteID(1), WriteID(2)], _) = $0 { return true } else { return false } })
        _ = s.step(Self.transact(Self.title(3, 1, "a")))
        _ = s.step(Self.transact(Self.title(4, 1, "b")))  // waits
        #expect(s.step(.clientDisconnected(Self.a)) == [.cancelTimer(t)])
        #expect(s.transactQueue!.waiting[0].isEmpty)
    }

    /// Off (the default), nothing queues: each transact commits as it arrives.
    @Test func withoutTheFlagEachTransactCommitsAtOnce() {
        var s = Self.server(combining: false)
        for i in UInt32(0)..<3 {
            let e = s.step(Self.transact(Self.title(i, 1, String(repeating: "T", count: Int(i) + 1))))
            #expect(e.contains { if case .applied(let tx) = $0 { return tx.superseded.isEmpty } else { return false } })
        }
        #expect(s.transactQueue == nil)
    }

    /// `matching-steps?`: same count, same kind, entity, fields and mode; links never.
    @Test func matchingSteps() {
        let u = { (e: UInt32, f: FieldID, up: Bool) in InstantStep(.update(EntityID(e), .todos, [FieldAssignment(f, .string("v"))]), upsert: up) }
        #expect(InstantTransactQueue.matching([u(1, .title, false)], [u(1, .title, false)]))
        #expect(!InstantTransactQueue.matching([u(1, .title, false)], [u(2, .title, false)]))
        #expect(!InstantTransactQueue.matching([u(1, .title, false)], [u(1, .done, false)]))
        #expect(!InstantTransactQueue.matching([u(1, .title, false)], [u(1, .title, true)]))
        #expect(!InstantTransactQueue.matching([u(1, .title, false)], [u(1, .title, false), u(1, .title, false)]))
        let link = InstantStep(.link(EntityID(3), LinkID(0), EntityID(4)), upsert: false)
        #expect(!InstantTransactQueue.matching([link], [link]))
    }

    static let scenario = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/sync/instant-server-combines-rapid-typing.json").path

    /// The scenario's run: rapid typing converges to the last keystroke and no oracle fires,
    /// though the history holds writes confirmed and never applied; judged without the log's
    /// supersession claim, the same history fails `noLostAcknowledgedWrite` and
    /// `toldOutcomeIsTrue` (so the oracles accept supersession from the log, and only from it).
    @Test func rapidTypingConvergesAndOnlyTheLogsSupersessionExcusesTheUnappliedKeystrokes() throws {
        let scenario = try Scenario.load(path: Self.scenario)
        let instant = AnyStrategy.builtIns.first { $0.name == "instant" }!
        var lines: [String] = []
        let run = try instant.run(scenario.schedule, seed: scenario.seed, history: { lines.append($0) })
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.server[EntityID(1)]?[.title] == .string("Testing"))
        // Confirmed, never applied: told confirmed, in no transaction's writes.
        let applied = Set(run.history.applied.flatMap(\.tx.writes))
        let confirmed = run.history.told.compactMap { t -> WriteID? in if case .writeConfirmed(let w) = t.event { return w } else { return nil } }
        let unapplied = confirmed.filter { !applied.contains($0) }
        #expect(unapplied.count >= 2, "expected keystrokes confirmed without being applied")
        #expect(Set(run.history.applied.flatMap(\.tx.superseded)) == Set(unapplied))
        // The recorded history judges the same…
        #expect(lines.contains { $0.contains("\"superseded\":[") })
        #expect(try HistoryCheck.check(lines: lines).violations.isEmpty)
        // …and without the log's claim the unapplied keystrokes are lost and falsely confirmed.
        let stripped = lines.map { $0.replacingOccurrences(of: #","superseded":\[[0-9,]*\]"#, with: "", options: .regularExpression) }
        #expect(!stripped.contains { $0.contains("superseded") })
        let blind = Set(try HistoryCheck.check(lines: stripped).violations.map(\.invariant))
        #expect(blind.contains(.noLostAcknowledgedWrite))
        #expect(blind.contains(.toldOutcomeIsTrue))
    }

    /// A log that claims supersession for a write no later write of its client replaced (here:
    /// another field) does not excuse it: the claim is checked against the intents.
    @Test func aSupersessionClaimNoLaterWriteBacksIsNotBelieved() {
        func judge(_ laterField: FieldID, _ later: FieldValue) -> Bool {
            var h = History()
            let a = Origin.client(Self.a)
            h.recordIntent(UserWrite(id: WriteID(0), ops: [.update(EntityID(1), .todos, [FieldAssignment(.title, .string("T"))])]),
                           origin: a, time: 0, clientTime: 0, whileDisconnected: false)
            let op = Op.update(EntityID(1), .todos, [FieldAssignment(laterField, later)])
            h.recordIntent(UserWrite(id: WriteID(1), ops: [op]), origin: a, time: 5, clientTime: 5, whileDisconnected: false)
            let tx = AppliedTransaction(txID: 1, origin: a, writes: [WriteID(1)], ops: [op], superseded: [WriteID(0)])
            h.recordApplied(tx, at: 10)
            var m = Monitor(clients: 1, schema: .default)
            m.noteSuperseded(tx, index: 0)
            return m.isSuperseded(WriteID(0), h)
        }
        #expect(judge(.title, .string("Te")))
        #expect(!judge(.done, .bool(true)))
    }

    /// Fuzz with the server combining, for both strategies on the InstantDB server: generated
    /// runs reach supersession, and no write is reported lost or falsely confirmed because of it
    /// (every such report has another cause: a restart with persistence off, or a send timeout,
    /// as without combining). fullEntity's updates carry every field, so a combined update is
    /// superseded by one that carries its value along: judged by the applied steps, not by what
    /// the later user write asked for.
    @Test(arguments: ["instant", "fullEntity"])
    func fuzzedRunsWithCombiningOn(_ name: String) throws {
        let strategy = AnyStrategy.builtIns.first { $0.name == name }!
        var superseded = 0
        for seed in UInt64(0)..<16 {
            var schedule = strategy.schedule(seed: seed, .init(actions: 40))
            schedule.options.strategy.instantCombineTransacts = true
            let run = try strategy.run(schedule, seed: seed)
            let gone = run.history.applied.flatMap(\.tx.superseded)
            superseded += gone.count
            let accused = run.violations.filter { v in
                (v.invariant == .noLostAcknowledgedWrite || v.invariant == .toldOutcomeIsTrue)
                    && gone.contains { v.explanation.contains("\($0) ") || v.explanation.contains("\($0)'") }
            }
            #expect(accused.isEmpty, "seed \(seed): \(accused)")
            #expect(!run.violations.contains { strategy.info.contract.contains($0.invariant) }, "seed \(seed): \(run.violations)")
            if schedule.options.persistence {
                #expect(!run.violations.contains { $0.invariant == .noLostAcknowledgedWrite }, "seed \(seed): \(run.violations)")
            }
        }
        #expect(superseded > 0, "no generated run reached supersession: the test would be vacuous")
    }

    /// Exported with combining on, a run's history checks to exactly the run's violations (the
    /// `superseded` key carries what the oracles need).
    @Test func combinedRunsRoundTripThroughTheHistoryFormat() throws {
        let instant = AnyStrategy.builtIns.first { $0.name == "instant" }!
        var withSuperseded = 0, violations = 0
        for seed in UInt64(0)..<6 {
            var schedule = instant.schedule(seed: seed, .init(actions: 40))
            schedule.options.strategy.instantCombineTransacts = true
            var lines: [String] = []
            let run = try instant.run(schedule, seed: seed, history: { lines.append($0) })
            if lines.contains(where: { $0.contains("\"superseded\":[") }) { withSuperseded += 1 }
            violations += run.violations.count
            #expect(try HistoryCheck.check(lines: lines).violations == run.violations, "seed \(seed)")
        }
        #expect(withSuperseded > 0 && violations > 0, "the round trip would be vacuous")
    }
}

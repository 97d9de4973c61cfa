import Foundation
import Testing
@testable import SyncSim

/// `conflictPrompt`'s per-entity-type rules beyond the version stamp (seed 003): files by
/// client-side field comparison (`ConflictPromptFiles`), tasks through the batch `/tasks/sync`
/// endpoint (`ConflictPromptTaskSync`), on the sideBar workspace schema of the scenario files.
@Suite struct ConflictPromptEntityRulesTests {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios/conflicts")
    static func scenario(_ name: String) throws -> Scenario { try Scenario.load(path: root.appendingPathComponent(name).path) }
    static let a = ClientID(0)

    @Test func rulesByNamespaceName() {
        #expect(CPConflictRule.forNamespace(named: "tasks") == .tasksBatch)
        #expect(CPConflictRule.forNamespace(named: "files") == .fields)
        #expect(CPConflictRule.forNamespace(named: "todos") == .taskSync)   // the default schema keeps the per-request form
        #expect(CPConflictRule.tasksBatch.name == "client_updated_at")
    }

    /// Transcript: one `/tasks/sync` request with three operations; the second is stale. The
    /// server applies the first, reports the second as the conflict and stops (the third is not
    /// applied and has no result); the answer lists the tasks changed since `last_sync` and
    /// `serverUpdatedSince` = its last transaction.
    @Test func taskSyncStopsAtTheFirstConflictAndReportsDeltas() throws {
        let schema = try Self.scenario("tasks-sync-batch-reports-conflict.json").schedule.schema
        let tasks = schema.namespaceIDs.first { schema.name(of: $0) == "tasks" }!
        let title = schema.fields(of: tasks)[0]
        var s = ConflictPromptServer(clients: 1, schema: schema)
        for i in UInt32(1)...3 {
            _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32.max), ops: [.create(EntityID(i), tasks, [FieldAssignment(title, .string("t\(i)"))])])))
        }
        _ = s.step(.adminWrite(UserWrite(id: WriteID(UInt32.max), ops: [.update(EntityID(2), tasks, [FieldAssignment(title, .string("x"))])])))
        #expect(s.txID == 4)
        func req(_ w: UInt32, _ e: UInt32, _ v: UInt64) -> CPWriteRequest {
            CPWriteRequest(key: WriteID(w), writes: [WriteID(w)], ops: [.update(EntityID(e), tasks, [FieldAssignment(title, .string("a\(e)"))])],
                           expect: [CPExpectation(EntityID(e), v)], force: false)
        }
        let fx = s.step(.received(from: Self.a, .taskSync([req(0, 1, 1), req(1, 2, 2), req(2, 3, 3)], since: 4)))
        let applied = fx.compactMap { e -> [WriteID]? in if case .applied(let tx) = e { return tx.writes } else { return nil } }
        #expect(applied == [[WriteID(0)]])
        guard let answer = fx.compactMap({ e -> ([CPTaskResult], [CPTaskDelta], UInt64)? in
            if case .send(_, .taskSyncResult(let r, let u, let since)) = e { return (r, u, since) } else { return nil }
        }).first else { Issue.record("no tasks/sync answer in \(fx)"); return }
        #expect(answer.0.map(\.key) == [WriteID(0), WriteID(1)])
        if case .conflict(let e, let v, let snap, _) = answer.0[1].outcome {
            #expect(e == EntityID(2) && v == 4 && snap == 2)
        } else { Issue.record("expected the conflict, got \(answer.0[1].outcome)") }
        #expect(answer.1.map(\.entity) == [EntityID(1)])   // only task#1 changed after tx 4
        #expect(answer.2 == 5)
        #expect(s.data[EntityID(3)]?[title] == .string("t3"))
        // A batch beyond the limit is invalid input, never a crash.
        let big = (0..<(ConflictPromptTaskSync.batchMax + 1)).map { req(UInt32(10 + $0), 1, 5) }
        #expect(s.step(.received(from: Self.a, .taskSync(big, since: 0))).contains { if case .invalidInput = $0 { return true } else { return false } })
    }

    /// The tasks scenario: the three queued task edits travel in one request; the stale one is
    /// prompted; keep local replays it with the operation behind it; everything converges.
    @Test func tasksScenarioBatchesAndPrompts() throws {
        let sc = try Self.scenario("tasks-sync-batch-reports-conflict.json")
        let cp = AnyStrategy.builtIns.first { $0.name == "conflictPrompt" }!
        let run = try cp.run(sc.schedule, seed: sc.seed)
        #expect(run.violations.isEmpty, "\(run.violations)")
        let prompts = run.history.told.filter { if case .conflictRaised = $0.event { return true } else { return false } }
        #expect(prompts.count == 1)
        // w0 and w1/w2 in two commits from A, w1 forced after the prompt.
        let fromA = run.history.applied.filter { $0.tx.origin == .client(Self.a) }.map(\.tx.writes)
        #expect(fromA == [[WriteID(0)], [WriteID(1)], [WriteID(2)]])
        #expect(run.history.applied.firstIndex { $0.tx.writes == [WriteID(2)] }! > run.history.applied.firstIndex { $0.tx.writes == [WriteID(1)] }!)
    }

    /// The files scenario: the rename is compared with the server's copy and prompted without
    /// any request; with no remote change, the same rename is sent and applied.
    @Test func fileRenameIsComparedByFieldsBeforeSending() throws {
        let sc = try Self.scenario("file-rename-vs-remote-rename-field-compare.json")
        let cp = AnyStrategy.builtIns.first { $0.name == "conflictPrompt" }!
        let run = try cp.run(sc.schedule, seed: sc.seed)
        #expect(run.violations.isEmpty, "\(run.violations)")
        #expect(run.history.told.contains { t in if case .notice(let n) = t.event { return n.contains("fields filename differ") } else { return false } })
        #expect(run.history.told.contains { t in if case .writeRejected(WriteID(0), .conflictDiscarded) = t.event { return true } else { return false } })
        #expect(!run.history.applied.contains { $0.tx.writes.contains(WriteID(0)) })
        var quiet = sc.schedule
        quiet.actions.removeAll { if case .update(ClientID(1), _, _) = $0.action { return true } else { return false } }
        let plain = try cp.run(quiet, seed: sc.seed)
        #expect(plain.violations.isEmpty)
        #expect(!plain.history.told.contains { if case .conflictRaised = $0.event { return true } else { return false } })
        #expect(plain.history.applied.contains { $0.tx.writes == [WriteID(0)] })
    }

    /// Generated runs on the workspace schema (tasks batched, files compared by fields, under
    /// faults and restarts) keep conflictPrompt's contract and reach both rules.
    @Test func fuzzedWorkspaceRunsKeepTheContract() throws {
        let schema = try Self.scenario("tasks-sync-batch-reports-conflict.json").schedule.schema
        let cp = AnyStrategy.builtIns.first { $0.name == "conflictPrompt" }!
        var fieldPrompts = 0, taskPrompts = 0
        for seed in UInt64(0)..<24 {
            let run = try cp.run(cp.schedule(seed: seed, .init(actions: 40, schema: schema)), seed: seed)
            let claimed = run.violations.filter { cp.info.contract.contains($0.invariant) }
            #expect(claimed.isEmpty, "seed \(seed): \(claimed)")
            for t in run.history.told {
                guard case .notice(let n) = t.event else { continue }
                if n.contains("differ from your snapshot") { fieldPrompts += 1 }
                if n.contains("client_updated_at") { taskPrompts += 1 }
            }
        }
        #expect(fieldPrompts + taskPrompts > 0, "no generated run reached a per-type conflict: the test would be vacuous")
    }

    /// Histories exported from workspace runs (batched task answers, field prompts) check to
    /// exactly the runs' violations.
    @Test func workspaceRunsRoundTripThroughTheHistoryFormat() throws {
        let schema = try Self.scenario("tasks-sync-batch-reports-conflict.json").schedule.schema
        let cp = AnyStrategy.builtIns.first { $0.name == "conflictPrompt" }!
        for seed in UInt64(0)..<4 {
            let (mismatch, lines, _) = try HistoryRoundTrip.compare(cp, seed: seed, .init(actions: 30, schema: schema))
            #expect(mismatch == nil, "\(mismatch!)")
            #expect(lines > 10)
        }
    }
}

import Testing
@testable import SyncSim

/// The `reference` client's incremental work (the view re-laid only where its writes or the
/// replica changed, subscriptions evaluated only when a changed slot can affect them, the
/// server's change log) gives exactly what the work from scratch gives.
@Suite("Reference incremental")
struct ReferenceIncrementalTests {
    /// `reference`, whose client checks after every input that its view equals the replica with
    /// the confirmed and queued writes laid over from scratch, and that every subscription shows
    /// its query's result over that view.
    struct CheckedStrategy: SyncStrategy {
        let log: DivergenceLog
        var info: StrategyInfo { ReferenceStrategy().info }
        var transport: Transport { .datagram }
        func makeClient(_ context: ClientContext, restoring durable: ReferenceClient.Durable?) -> CheckedClient {
            CheckedClient(inner: ReferenceClient(context: context, restoring: durable), log: log)
        }
        func makeServer(_ context: ServerContext) -> CheckedServer {
            CheckedServer(inner: ReferenceStrategy().makeServer(context), log: log)
        }
    }

    struct CheckedClient: ClientMachine {
        var inner: ReferenceClient
        let log: DivergenceLog
        /// The last persisted state and the replica it stood for when taken.
        var earlier: (durable: ReferenceClient.Durable, replica: ReferenceTable)?

        mutating func handle(_ input: ClientInput<ReferenceDown>, now: Int64, out: inout ClientOutbox<ReferenceUp>) {
            inner.handle(input, now: now, out: &out)
            var scratch = inner.replica
            for c in inner.confirmed { _ = scratch.apply(c.mutation.ops, stamp: c.mutation.stamp, version: 0, schema: inner.schema) }
            for m in inner.queue { _ = scratch.apply(m.ops, stamp: m.stamp, version: 0, schema: inner.schema) }
            let n = max(scratch.states.count, inner.view.states.count)
            let sameStates = (0..<n).allSatisfy { i in
                (i < scratch.states.count ? scratch.states[i] : nil) == (i < inner.view.states.count ? inner.view.states[i] : nil)
            }
            log.checked(reused: !inner.overlaid.isEmpty)
            if !sameStates || scratch.store != inner.view.store {
                log.diverged("\(inner.id) at \(now) after \(input): view differs from the rebuilt one")
            }
            guard inner.replicaValid else { return }
            // The persisted replica (a base and a log of puts) is the replica.
            if inner.persistence {
                log.checked()
                if inner.durableState.replica != inner.replica { log.diverged("\(inner.id) at \(now): persisted replica differs") }
                // A replica persisted earlier is unchanged by later puts (its log is shared with
                // the client's, `SharedAppendLog`).
                if let e = earlier, e.durable.replica != e.replica { log.diverged("\(inner.id) at \(now): earlier persisted replica changed") }
                earlier = (inner.durableState, inner.replica)
            }
            for s in inner.subs.subs {
                guard let shown = inner.result(of: s.id) else { continue }
                let query = inner.subs.groups[s.group].query
                log.checked()
                if shown != query.evaluate(scratch.store) {
                    log.diverged("\(inner.id) \(s.id) at \(now) after \(input): shows \(shown.summary)")
                }
            }
        }

        var durableState: ReferenceClient.Durable { inner.durableState }
        func result(of subscription: SubscriptionID) -> QueryResult? { inner.result(of: subscription) }
        var pendingWrites: [WriteID] { inner.pendingWrites }
    }

    /// Checks that each reply's changes are exactly the table's scan of the entities above the
    /// reply's base version.
    struct CheckedServer: ServerMachine {
        var inner: ReferenceServer
        let log: DivergenceLog
        var data: EntityStore { inner.data }

        mutating func handle(_ input: ServerInput<ReferenceUp>, now: Int64, out: inout ServerOutbox<ReferenceDown>) {
            inner.handle(input, now: now, out: &out)
            for v in [0, inner.version / 2, inner.version > 0 ? inner.version - 1 : 0, inner.version] {
                log.checked()
                if inner.changes(since: v) != inner.table.changes(since: v) { log.diverged("changes since v\(v) at \(now)") }
            }
        }
    }

    @Test func generatedRunsMatchTheWorkFromScratch() throws {
        let log = DivergenceLog()
        var hashes: [String] = []
        for seed in UInt64(0)..<12 {
            let schedule = WorkloadGenerator(.init(actions: 150)).generate(seed: seed)
            let checked = try Simulator.run(CheckedStrategy(log: log), schedule, seed: seed)
            let plain = try Simulator.run(ReferenceStrategy(), schedule, seed: seed)
            if checked.traceHash != plain.traceHash { hashes.append("seed \(seed)") }
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(hashes.isEmpty, "the checking wrapper changed the run: \(hashes)")
        #expect(log.checks > 1_000)
        #expect(log.reused > 100)
    }

    // MARK: - Which changes can affect a subscription

    let todo = EntityID(1), done = EntityID(2), author = EntityID(3), post = EntityID(4), lone = EntityID(5)

    /// todo#1 (open), todo#2 (done), profile#3 with post#4, profile#5 with no post.
    func store() -> EntityStore {
        var s = EntityStore()
        for op: Op in [
            .create(todo, .todos, [FieldAssignment(.title, .string("a")), FieldAssignment(.done, .bool(false))]),
            .create(done, .todos, [FieldAssignment(.title, .string("b")), FieldAssignment(.done, .bool(true))]),
            .create(author, .profiles, []), .create(lone, .profiles, []), .create(post, .posts, []),
            .link(post, .author, author),
        ] { #expect(s.apply(op, schema: .default) == nil) }
        return s
    }

    func affects(_ dirty: [EntityID], _ q: Query) -> Bool {
        let s = store()
        return ReferenceClient.affects(dirty.map { Int($0.raw) }, q, shown: q.evaluate(s), view: s, schema: .default)
    }

    @Test func aChangeOutsideAFilteredQueryDoesNotAffectIt() {
        let open = Query(.todos, where: FieldAssignment(.done, .bool(false)))
        #expect(!affects([done], open))
        #expect(affects([todo], open))
        #expect(!affects([author, post], open))
        #expect(!affects([], Query(.todos)))
    }

    @Test func linkedChildrenCount() {
        // A post of an author is a child of `profiles with posts`; any existing profile may be a
        // post's author, so it can affect `posts with author`.
        #expect(affects([post], Query(.profiles, include: .reverse(.author))))
        #expect(affects([lone], Query(.posts, include: .forward(.author))))
        #expect(!affects([todo], Query(.posts, include: .forward(.author))))
        // A slot no entity fills (deleted, never created) that was not in the result.
        #expect(!affects([EntityID(40)], Query(.posts, include: .forward(.author))))
    }

    /// The test that `affects` can fail: every slot whose change would change the result is
    /// reported, checked by changing each entity and comparing the evaluations.
    @Test func everyChangeThatChangesAResultIsSeen() {
        let queries = [Query(.todos), Query(.todos, where: FieldAssignment(.done, .bool(true))),
                       Query(.profiles, include: .reverse(.author)), Query(.posts, include: .forward(.author)),
                       Query(.profiles)]
        let edits: [Op] = [
            .update(todo, .todos, [FieldAssignment(.done, .bool(true))]), .delete(author, .profiles),
            .delete(post, .posts), .unlink(post, .author, author), .link(post, .author, lone),
            .create(EntityID(9), .posts, []), .update(lone, .profiles, [FieldAssignment(.name, .string("n"))]),
        ]
        var changedSome = 0
        for q in queries {
            for op in edits {
                let before = store()
                var after = before
                #expect(after.apply(op, schema: .default) == nil)
                let n = max(before.records.count, after.records.count)
                let dirty = (0..<n).filter { i in
                    (i < before.records.count ? before.records[i] : nil) != (i < after.records.count ? after.records[i] : nil)
                }
                let changed = q.evaluate(after) != q.evaluate(before)
                if changed { changedSome += 1 }
                if changed {
                    #expect(ReferenceClient.affects(dirty, q, shown: q.evaluate(before), view: after, schema: .default),
                            "\(q) after \(op)")
                }
            }
        }
        #expect(changedSome > 5)
    }
}

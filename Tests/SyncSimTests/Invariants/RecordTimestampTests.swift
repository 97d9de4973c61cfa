import Testing
@testable import SyncSim

/// `lwwConvergence` under `.recordTimestamp` (`Monitor+RecordOrder.swift`): pushPull judged by
/// its own record-level rule. Fails on a pushPull whose server ignores `updatedAt`, holds on
/// pushPull, and shows why the field-level `.clientTimestamp` rule was the wrong yardstick.
@Suite struct RecordTimestampTests {
    typealias F = Fixture
    let A = Fixture.A, B = Fixture.B

    /// A's clock runs 5 s behind: its offline edit is stamped older than B's later one, so when
    /// A comes back its push must lose (server newer) and B's title must stay.
    var olderStampArrivesLast: [TimedAction] {
        F.subscribeTodos + [
            TimedAction(at: 1_000, .goOffline(A)),
            TimedAction(at: 1_100, .update(A, F.todo, F.set(.title, .string("A, stamped older")))),
            TimedAction(at: 2_000, .update(B, F.todo, F.set(.title, .string("B, stamped newer")))),
            TimedAction(at: 4_000, .goOnline(A)),
        ]
    }

    var skewed: SimulationOptions {
        var o = F.options()
        o.clockSkewMs = [-5_000, 0]
        return o
    }

    @Test func failsWhenTheServerIgnoresTimestamps() throws {
        let bad = try F.run(StampBlindPushPull(), olderStampArrivesLast, options: skewed)
        #expect(bad.server[F.todo]?[.title] == .string("A, stamped older"), "\(bad.story)")
        #expect(bad.violates(.lwwConvergence), "\(bad.violations)")
        let v = try #require(bad.violations.first { $0.invariant == .lwwConvergence })
        #expect(v.entity == F.todo && v.culprit == "client update", "\(v)")
    }

    @Test func holdsOnPushPull() throws {
        let good = try F.run(PushPullStrategy(), olderStampArrivesLast, options: skewed)
        #expect(good.server[F.todo]?[.title] == .string("B, stamped newer"), "\(good.story)")
        #expect(!good.violates(.lwwConvergence), "\(good.violations)")
        #expect(PushPullStrategy().info.arbitration == .recordTimestamp)
    }

    /// The model bug that kept pushPull from claiming lwwConvergence (seed 76, shrunk): the server
    /// applies a push's rows in entity-id order and dropped links to entities it did not have
    /// yet, so a link to an entity created later in the same push was lost. The oracle was
    /// right (the newest row links post#14 to profile#15 and nobody deleted profile#15); the
    /// server now sets such links once every row of the push is in, and pushPull claims the rule.
    @Test func aLinkToAnEntityCreatedLaterInTheSamePushIsKept() throws {
        var o = F.options(clients: 1)
        o.latencyMinMs = 16
        o.latencyMaxMs = 16
        let post = EntityID(14), profile = EntityID(15)
        let actions = [
            TimedAction(at: 53, .create(A, post, .posts, [])),
            TimedAction(at: 54, .link(A, post, .author, F.profile)),
            TimedAction(at: 627, .create(A, profile, .profiles, [])),
            TimedAction(at: 627, .link(A, post, .author, profile)),
        ]
        let r = try F.run(PushPullStrategy(), actions, options: o)
        #expect(PushPullStrategy().info.contract.contains(.lwwConvergence))
        #expect(r.server[post]?[.author] == profile, "\(r.story)")
        #expect(!r.violates(.lwwConvergence), "\(r.violations)")
    }

    /// A back-office write applies over a row stamped in the future (A's clock runs 5 s ahead):
    /// the record rule (server writes apply over any stamp) accepts it; the field-level rule,
    /// which ranks A's write first by its stamp, calls it a violation: the false alarm that kept
    /// pushPull from claiming lwwConvergence.
    @Test func serverWritesApplyOverAnyStamp() throws {
        var o = F.options()
        o.clockSkewMs = [5_000, 0]
        let actions = F.subscribeTodos + [
            TimedAction(at: 1_000, .update(A, F.todo, F.set(.title, .string("A, stamped ahead")))),
            TimedAction(at: 3_000, .serverUpdate(F.todo, F.set(.title, .string("back office")))),
        ]
        let record = try F.run(PushPullStrategy(), actions, options: o)
        #expect(record.server[F.todo]?[.title] == .string("back office"), "\(record.story)")
        #expect(!record.violates(.lwwConvergence), "\(record.violations)")
        let perField = try F.run(PushPullJudgedAs(.clientTimestamp), actions, options: o)
        #expect(perField.violates(.lwwConvergence), "\(perField.violations)")
    }
}

/// pushPull judged under another arbitration rule (same machines, same runs).
struct PushPullJudgedAs: SyncStrategy {
    let rule: Arbitration
    init(_ rule: Arbitration) { self.rule = rule }
    var info: StrategyInfo {
        var i = PushPullStrategy().info
        i.name = "pushPull/\(rule)"
        i.arbitration = rule
        return i
    }
    var transport: Transport { .datagram }
    func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> PushPullClient {
        PushPullStrategy().makeClient(context, restoring: durable)
    }
    func makeServer(_ context: ServerContext) -> PushPullServer { PushPullStrategy().makeServer(context) }
}

/// pushPull whose server ignores `updatedAt`: every pushed row is written as if forced.
struct StampBlindPushPull: SyncStrategy {
    var info: StrategyInfo {
        var i = PushPullStrategy().info
        i.name = "stampBlind"
        return i
    }
    var transport: Transport { .datagram }
    func makeClient(_ context: ClientContext, restoring durable: PushPullClient.Durable?) -> PushPullClient {
        PushPullStrategy().makeClient(context, restoring: durable)
    }
    func makeServer(_ context: ServerContext) -> StampBlindServer { StampBlindServer(inner: PushPullStrategy().makeServer(context)) }
}

struct StampBlindServer: ServerMachine {
    var inner: PushPullServer
    var data: EntityStore { inner.data }
    mutating func handle(_ input: ServerInput<PushPullUp>, now: Int64, out: inout ServerOutbox<PushPullDown>) {
        if case .received(let c, .push(let s, let at, var rows, let batch)) = input {
            for i in rows.indices { rows[i].force = true }
            inner.handle(.received(from: c, .push(sync: s, lastPulledAt: at, records: rows, batch: batch)), now: now, out: &out)
        } else {
            inner.handle(input, now: now, out: &out)
        }
    }
}

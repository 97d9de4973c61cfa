import Foundation
import Testing
@testable import SyncSim

/// The explainer on hand-made scenarios whose answers follow from their latencies (fixed at
/// 50 ms one way, so every arrival time is known) and from the strategies' documented rules.
@Suite struct ExplainerTests {
    static func scenario(_ json: String) throws -> Scenario {
        try Scenario.decode(Data(json.utf8), file: "test.json")
    }

    /// Seed 001's ghost deletion (Scenarios/deletes/ghost-deletion-two-subscriptions.json) with an
    /// unrelated typing burst into a todo nobody subscribes to, after the failure.
    static let ghostWithTyping = """
    {"format": 1, "title": "ghost deletion plus unrelated typing", "strategy": "sharedDiff", "expect": {"sharedDiff": "noGhostDeletion"},
     "options": {"clients": 1, "latencyMaxMs": 50, "latencyMinMs": 50},
     "initial": [
       {"entity": 1, "namespace": "profiles", "set": {"bio": "a", "name": "Alice"}},
       {"entity": 2, "namespace": "profiles", "set": {"bio": "b", "name": "Bob"}},
       {"entity": 3, "links": {"author": 1}, "namespace": "posts", "set": {"content": "hi", "likes": 0}},
       {"entity": 4, "namespace": "todos", "set": {"title": "milk"}}
     ],
     "actions": [
       {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "profiles"}},
       {"at": 0, "do": "subscribe", "client": "A", "sub": 2, "query": {"include": "author", "namespace": "posts"}},
       {"at": 1000, "do": "update", "client": "A", "entity": 2, "set": {"bio": "b2"}},
       {"at": 3000, "do": "type", "client": "A", "entity": 4, "field": "title", "text": "oat", "everyMs": 40}
     ]}
    """

    /// Seed 000: A's write reaches the server at 1050; A goes offline at 1075, so the ack due at
    /// 1100 is lost and the write is sent again on reconnect (instant does not deduplicate).
    static let lostAck = """
    {"format": 1, "title": "lost ack", "strategy": "instant", "expect": {"instant": "noDuplicateApplication"},
     "options": {"clients": 2, "latencyMaxMs": 50, "latencyMinMs": 50},
     "initial": [{"entity": 1, "namespace": "todos", "set": {"done": false, "priority": 1, "title": "a"}}],
     "actions": [
       {"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "todos"}},
       {"at": 1000, "do": "update", "client": "A", "entity": 1, "set": {"title": "once"}},
       {"at": 1075, "do": "offline", "client": "A"},
       {"at": 2000, "do": "online", "client": "A"}
     ]}
    """

    static func explain(_ json: String, _ strategy: AnyStrategy, budget: ExplainBudget = ExplainBudget()) throws -> Explanation {
        let sc = try scenario(json)
        guard case .fails(let inv)? = sc.expect[strategy.name] else { throw ExplainError.invalidSchedule("no expectation") }
        return try Explainer(strategy: strategy, seed: sc.seed, budget: budget).explain(sc.schedule, invariant: inv)
    }

    @Test func ghostDeletionNeedsBothSubscriptionsAndTheSaveButNotTheTyping() throws {
        let e = try Self.explain(Self.ghostWithTyping, AnyStrategy(SharedDiffStrategy()))
        #expect(e.complete)
        #expect(e.invariant == "noGhostDeletion" && e.entity == 2)
        // The two subscriptions (the full and the partial view of profiles) and the save of Bob's
        // bio are needed; the typing into an unrelated todo can go.
        #expect(e.necessaryActions == [0, 1, 2])
        #expect(e.actions[3].verdict == .free)
        #expect(e.actions[3].freeParameters.contains("text"))
        // The partial view is what makes the diff delete Bob: without its include, no ghost.
        #expect(e.actions[1].fixedParameters.contains("query.include"))
        // Any new bio triggers the save.
        #expect(e.actions[2].freeParameters == ["set.bio"])
        // The save must come after the posts view has loaded (sent at 0, answered at 100 with
        // 50 ms each way), and from then on at any time.
        let w = try #require(e.actions[2].window)
        #expect(w.from > 100 && w.from <= 1000 && w.to == nil)
        // Bob must exist; Alice's and the todo's data can go.
        #expect(e.initial.map(\.verdict) == [.free, .necessary, .free, .free])
        // Nothing is certain before the save; after it, every continuation fails.
        #expect(e.pointOfNoReturn?.afterActions == 3)
    }

    @Test func offlineBetweenCommitAndAckIsATimingWindow() throws {
        let e = try Self.explain(Self.lostAck, AnyStrategy(InstantStrategy()))
        #expect(e.complete)
        let offline = e.actions[2]
        #expect(offline.verdict == .timing)
        // After the server applied the write at 1050, no later than the ack's arrival at 1100.
        #expect(offline.window == Explanation.Window(from: 1051, to: 1100, probedUpTo: offline.window!.probedUpTo))
        // Going back online is free: the heal phase reconnects A anyway.
        #expect(e.actions[3].verdict == .free)
        // The write's value is free; the client is not (B never lost an ack).
        #expect(e.actions[1].freeParameters.contains("set.title"))
        #expect(e.actions[2].fixedParameters == ["client"])
        #expect(e.necessaryActions.contains(1) && e.necessaryActions.contains(2) && !e.necessaryActions.contains(3))
    }

    @Test func optionFaultsAreJudgedByTurningThemOff() throws {
        // Without persistence a restart loses the queued write (Scenarios/durability).
        let json = """
        {"format": 1, "title": "restart loses queue", "strategy": "instant", "expect": {"instant": "noLostAcknowledgedWrite"},
         "options": {"clients": 1, "latencyMaxMs": 50, "latencyMinMs": 50, "persistence": false, "duplicatePpm": 500000},
         "initial": [{"entity": 1, "namespace": "todos", "set": {"title": "a"}}],
         "actions": [
           {"at": 1000, "do": "offline", "client": "A"},
           {"at": 1100, "do": "update", "client": "A", "entity": 1, "set": {"title": "queued"}},
           {"at": 1200, "do": "restart", "client": "A"}
         ]}
        """
        let e = try Self.explain(json, AnyStrategy(InstantStrategy()))
        let byName = Dictionary(uniqueKeysWithValues: e.options.map { ($0.option, $0.verdict) })
        #expect(byName["persistence"] == .necessary)
        // Instant's stream transport never duplicates: the rate is irrelevant.
        #expect(byName["duplicatePpm"] == .free)
    }

    /// A rate turned off must not shift the network's random draws: instant's stream transport
    /// never duplicates, so duplicatePpm cannot matter; but at 0 ppm the duplicate draws stop and
    /// every later latency changes (with jitter, seed 2 then loses this failure). At 1 ppm the
    /// draws stay, and the verdict is the true one.
    @Test func turningARateOffKeepsTheRandomDraws() throws {
        let json = """
        {"format": 1, "title": "lost ack, jitter", "strategy": "instant", "expect": {"instant": "noDuplicateApplication"}, "origin": {"seed": 2},
         "options": {"clients": 2, "latencyMaxMs": 60, "latencyMinMs": 5, "duplicatePpm": 500000},
         "initial": [{"entity": 1, "namespace": "todos", "set": {"title": "a"}}],
         "actions": [{"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "todos"}},
           {"at": 1000, "do": "update", "client": "A", "entity": 1, "set": {"title": "once"}},
           {"at": 1040, "do": "offline", "client": "A"}]}
        """
        let sc = try Self.scenario(json)
        var zero = sc.schedule
        zero.options.duplicatePpm = 0
        let instant = AnyStrategy(InstantStrategy())
        // The premise: at 0 ppm this seed no longer fails (the draws moved), so 0 would be wrong.
        #expect(!(try instant.run(zero, seed: sc.seed)).violations.contains { $0.invariant == .noDuplicateApplication })
        let e = try Self.explain(json, instant)
        #expect(e.options.first { $0.option == "duplicatePpm" }?.verdict == .free)
    }

    @Test func sameInputSameExplanation() throws {
        let a = try Self.explain(Self.lostAck, AnyStrategy(InstantStrategy()))
        let b = try Self.explain(Self.lostAck, AnyStrategy(InstantStrategy()))
        #expect(a == b)
    }

    @Test func theBudgetEndsTheReplaysAndSaysSo() throws {
        let e = try Self.explain(Self.ghostWithTyping, AnyStrategy(SharedDiffStrategy()), budget: ExplainBudget(maxRuns: 3))
        #expect(!e.complete)
        #expect(e.runs <= 4)   // three counterfactuals and the original replay
        #expect(e.actions.contains { $0.verdict == nil })
        #expect(e.pointOfNoReturn == nil)
        // Cut during the window search: removal proved the first three needed, nothing refined
        // them to timing, and none has a window.
        let cut = try Self.explain(Self.ghostWithTyping, AnyStrategy(SharedDiffStrategy()), budget: ExplainBudget(maxRuns: 6))
        #expect(!cut.complete)
        #expect(cut.actions.map(\.verdict) == [.necessary, .necessary, .necessary, .free])
        #expect(cut.actions.allSatisfy { $0.window == nil })
        // A stop asked before anything ran explains nothing, rather than guessing.
        #expect(throws: ExplainError.stoppedBeforeFirstRun) {
            try Self.explain(Self.lostAck, AnyStrategy(InstantStrategy()), budget: ExplainBudget(shouldStop: { true }))
        }
    }

    @Test func aScenarioThatDoesNotFailHasNothingToExplain() throws {
        let sc = try Self.scenario(Self.lostAck)
        // Reference deduplicates by write id: no duplicate application to explain.
        #expect(throws: ExplainError.self) {
            try Explainer(strategy: AnyStrategy(ReferenceStrategy()), seed: sc.seed).explain(sc.schedule)
        }
    }

    @Test func movingAnActionKeepsTimeOrder() throws {
        let s = try Self.scenario(Self.lostAck).schedule
        let later = TimeWindowSearch.moving(s, 1, to: 1500)
        #expect(later.actions.map(\.at) == [0, 1075, 1500, 2000])
        let earlier = TimeWindowSearch.moving(s, 3, to: 1075)
        #expect(earlier.actions.map(\.at) == [0, 1000, 1075, 1075])
        #expect(earlier.actions[2].action == .goOnline(ClientID(0)))
    }
}

/// The line between timing and ordering: an edge of a window is a timing bound only when
/// stepping over it leaves the action's place among the others unchanged.
@Suite struct TimeWindowSearchTests {
    static let schedule = Schedule(options: SimulationOptions(), actions: [
        TimedAction(at: 45, .goOffline(ClientID(1))),
        TimedAction(at: 45, .goOffline(ClientID(0))),
        TimedAction(at: 600, .goOnline(ClientID(0))),
    ])

    @Test func crossingAnotherActionIsOrderNotTiming() {
        let s = Self.schedule
        // Action 1 at 45, after action 0 (also at 45): moved to 44 it comes before action 0.
        #expect(TimeWindowSearch.place(s, 1, at: 45) == 1 && TimeWindowSearch.place(s, 1, at: 44) == 0)
        // A window starting at 45 and open-ended is bounded by order only.
        #expect(!TimeWindowSearch.isTimingBound(Explanation.Window(from: 45, to: nil, probedUpTo: 10_000), s, 1))
        // Ending at 599 for action 1: at 600 it would pass action 2 (placed after it): order.
        #expect(!TimeWindowSearch.isTimingBound(Explanation.Window(from: 45, to: 599, probedUpTo: 10_000), s, 1))
        // Ending at 300: 301 has the same place, so the clock alone lost the failure: timing.
        #expect(TimeWindowSearch.isTimingBound(Explanation.Window(from: 45, to: 300, probedUpTo: 10_000), s, 1))
        // Action 2 starting at 100: at 99 it still comes after both offlines: timing.
        #expect(TimeWindowSearch.isTimingBound(Explanation.Window(from: 100, to: nil, probedUpTo: 10_000), s, 2))
    }
}

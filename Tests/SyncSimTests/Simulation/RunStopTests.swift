import Foundation
import Testing
@testable import SyncSim

/// The stop hook inside the simulator's event loop: it ends a long run within
/// `RunStop.checkInterval` events and marks it unfinished, and changes nothing about a run it
/// does not stop.
@Suite struct RunStopTests {
    static let long = WorkloadGenerator(.init(clients: 3, actions: 1_000)).generate(seed: 7)

    @Test func aStoppedRunEndsAtTheNextCheckAndIsMarkedUnfinished() throws {
        let r = try RunStop.$current.withValue(RunStop { true }) { try Simulator.run(InstantStrategy(), Self.long, seed: 7) }
        #expect(r.interrupted)
        #expect(r.events == RunStop.checkInterval, "stopped after \(r.events) events")
        #expect(!r.settled)
    }

    @Test func aConditionThatNeverFiresChangesNothing() throws {
        let plain = try Simulator.run(InstantStrategy(), Self.long, seed: 7)
        let watched = try RunStop.$current.withValue(RunStop { false }) { try Simulator.run(InstantStrategy(), Self.long, seed: 7) }
        #expect(plain.events > RunStop.checkInterval, "the schedule is too short to cross a check")
        #expect(!plain.interrupted && !watched.interrupted)
        #expect(watched.traceHash == plain.traceHash && watched.events == plain.events && watched.violations == plain.violations)
    }

    /// A stop asked mid-shrink ends the shrink at once with a failure that really fails, even on
    /// a long schedule whose passes alone would be quadratic.
    @Test func aStoppedShrinkReturnsARealFailureQuickly() throws {
        let strategy = AnyStrategy(SharedDiffStrategy())
        let schedule = strategy.schedule(seed: 0, .init(actions: 1_000))
        let first = try strategy.run(schedule, seed: 0)
        let target = try #require(first.violatedInvariants.first)
        let calls = Counter()
        let t0 = Date()
        let out = strategy.shrink(schedule, seed: 0, invariant: target, shouldStop: { calls.next() > 3 })
        #expect(Date().timeIntervalSince(t0) < 20)
        let o = try #require(out)
        #expect(o.runs <= 3)
        #expect(try strategy.run(o.schedule, seed: 0).violations.contains { $0.invariant == target })
    }
}

final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var n = 0
    func next() -> Int { lock.lock(); defer { lock.unlock() }; n += 1; return n }
}

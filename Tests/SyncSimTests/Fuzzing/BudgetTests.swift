import Foundation
import Testing
@testable import SyncSim

/// The fuzz driver's budget and interrupt: checked inside runs, so a run longer than the budget
/// cannot overrun it; runs they stop are left out, never reported as passed or failed; the
/// report says why it stopped and which failures were left unshrunk.
@Suite struct BudgetTests {
    @Test func anInterruptInsideLongRunsKeepsOnlyFinishedRuns() throws {
        // Interrupt after a few checks: the first claims and the first in-run checks pass.
        let calls = Counter()
        var config = FuzzConfiguration(seeds: SeedRange(0..<1_000_000), jobs: 1, shrink: false,
                                       generator: .init(clients: 2, actions: 20))
        config.interrupt = { calls.next() > 40 }
        let r = try FuzzDriver(strategies: [AnyStrategy(ReferenceStrategy())], configuration: config).run().report
        #expect(!r.complete && r.stopReason == .interrupted)
        #expect(r.runs.count > 0 && r.runs.count < 41)
        // What is kept is a prefix of the plan, each run finished (settled or judged).
        #expect(r.runs.map(\.seed) == Array(0..<UInt64(r.runs.count)))
    }

    @Test func aBudgetShorterThanOneRunEndsOnTime() throws {
        // One run of 10,000 actions takes tens of seconds in a debug build: without the check
        // inside runs, the budget could not end it.
        var config = FuzzConfiguration(seeds: SeedRange(0..<1_000_000), jobs: 1, timeBudgetSeconds: 0.3, shrink: true,
                                       generator: .init(clients: 3, actions: 10_000))
        config.reportDirectory = nil
        let t0 = Date()
        let r = try FuzzDriver(strategies: [AnyStrategy(InstantStrategy())], configuration: config).run().report
        let took = Date().timeIntervalSince(t0)
        #expect(!r.complete && r.stopReason == .timeBudget)
        // Generating and compiling the schedule is not interruptible; the run is.
        #expect(took < 8, "took \(took) s for a 0.3 s budget")
        #expect(r.runs.isEmpty, "a run of 10,000 actions cannot have finished in 0.3 s: \(r.runs.count)")
        #expect(r.strategies[0].runs == 0)
    }

    @Test func failuresTheBudgetLeftUnshrunkAreMarked() throws {
        // A clock that jumps past the deadline once runs are over: shrinking gets no time.
        let ticks = Counter()
        let config = FuzzConfiguration(seeds: SeedRange(0..<3), jobs: 1, timeBudgetSeconds: 1_000, shrink: true,
                                       generator: .init(actions: 40), clock: { ticks.next() > 5 ? 1e9 : 0 })
        let r = try FuzzDriver(strategies: [AnyStrategy(SharedDiffStrategy())], configuration: config).run().report
        #expect(!r.failures.isEmpty)
        // Every run finished; only shrinking was cut short, and the report says so.
        #expect(r.complete && r.stopReason == .timeBudget)
        for f in r.failures {
            #expect(f.shrunkActions == nil && f.shrinkStopped == true && !f.explanation.isEmpty, "\(f.invariant)")
        }
        #expect(MarkdownReport.render(r).contains("**Left unshrunk:**"))
    }

    @Test func aCompleteRunHasNoStopReasonAndTheSameJSONAsBefore() throws {
        let r = try FuzzDriver(strategies: [AnyStrategy(ReferenceStrategy())],
                               configuration: FuzzConfiguration(seeds: SeedRange(0..<2), jobs: 1, generator: .init(actions: 10))).run().report
        #expect(r.complete && r.stopReason == nil)
        #expect(!(try ReportWriter.json(r)).contains("stopReason"))
    }
}

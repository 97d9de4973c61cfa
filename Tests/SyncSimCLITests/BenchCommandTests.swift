import Foundation
import Testing
@testable import SyncSimCLI
import SyncSim

/// `bench`: its figures are medians of alternating rounds, its event counts are the runs' own,
/// and a user's strategy is measured like a built-in.
@Suite struct BenchCommandTests {
    @Test func spreadIsTheMedianAndExtremes() {
        #expect(BenchSpread([3, 1, 2]) == BenchSpread(median: 2, min: 1, max: 3))
        #expect(BenchSpread([4, 1, 3, 2]) == BenchSpread(median: 2.5, min: 1, max: 4))
        #expect(BenchSpread([7]) == BenchSpread(median: 7, min: 7, max: 7))
        #expect(BenchSpread([]) == BenchSpread(median: 0, min: 0, max: 0))
        // One wild round moves neither the median nor the others' order.
        #expect(BenchSpread([1.9, 2.0, 9.0, 1.95, 0.1]).median == 1.95)
        // Ratios pair by pair: a/b per round, a zero divisor left out.
        #expect(BenchSpread.ratios([2, 4, 9], [1, 2, 3]) == BenchSpread(median: 2, min: 2, max: 3))
        #expect(BenchSpread.ratios([2, 5], [1, 0]) == BenchSpread(median: 2, min: 2, max: 2))
    }

    @Test func cpuClocksAdvanceWithWork() {
        let t0 = CPUClock.threadSeconds(), p0 = CPUClock.processSeconds()
        var x: UInt64 = 1
        for i in 0..<3_000_000 { x = x &* 6364136223846793005 &+ UInt64(i) }
        #expect(x != 0)
        #expect(CPUClock.threadSeconds() > t0)
        #expect(CPUClock.processSeconds() > p0)
    }

    /// The JSON of a user's strategy over three rounds: the counts are those of running its
    /// schedules directly, and every figure is consistent with the rounds it summarises.
    @Test func benchOfAUserStrategyCountsItsRunsAndSummarisesItsRounds() throws {
        let o = NotesTool.run(["bench", "--strategy", "notesHonest", "--seeds", "3", "--rounds", "3", "--jobs", "2", "--flat", "20,60", "--json"])
        #expect(o.status == 0, "\(o.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: Data(o.stdout.utf8)) as? [String: Any])
        let rows = try #require(json["strategies"] as? [[String: Any]])
        #expect(rows.count == 1)
        let row = try #require(rows.first)
        #expect(row["strategy"] as? String == "notesHonest")
        #expect(row["rounds"] as? Int == 3 && row["schedules"] as? Int == 3 && row["jobs"] as? Int == 2)
        // The events are the runs' own: bench's workload, run here seed by seed.
        let config = WorkloadGenerator.Config(clients: 3, actions: 200, swarm: true, stress: false)
        let honest = NotesTool.honest
        var events = 0
        for i in 0..<3 { events += try honest.run(honest.schedule(seed: UInt64(i), config), seed: UInt64(i)).events }
        #expect(events > 0)
        #expect(row["events"] as? Int == events)
        // The flat-cost runs are the run command's: its events for seed 1 with 20 and 60 actions.
        for (key, actions) in [("flatEventsShort", "20"), ("flatEventsLong", "60")] {
            let r = NotesTool.run(["run", "--strategy", "notesHonest", "--seed", "1", "--actions", actions, "--json"])
            let runJSON = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
            let runEvents = try #require(runJSON["events"] as? Int)
            #expect(row[key] as? Int == runEvents, "\(key)")
        }
        #expect(json["flatCostActions"] as? [Int] == [20, 60])
        func number(_ k: String) throws -> Double { try #require(row[k] as? Double, "\(k)") }
        let speedup = try number("speedup"), lo = try number("speedupMin"), hi = try number("speedupMax")
        #expect(lo > 0 && lo <= speedup && speedup <= hi)
        for k in ["oneJobSeconds", "manyJobsSeconds", "oneJobCPUSeconds", "manyJobsCPUSeconds",
                  "nsPerEventShort", "nsPerEventLong", "cpuNsPerEventShort", "cpuNsPerEventLong", "costGrowth", "cpuCostGrowth"] {
            #expect(try number(k) > 0, "\(k)")
        }
        #expect(abs(try number("oneJobEventsPerSecond") * (try number("oneJobSeconds")) - Double(events)) < 1)
        #expect(abs(try number("cpuCostGrowth") - (try number("cpuNsPerEventLong")) / (try number("cpuNsPerEventShort"))) < 1e-9)
    }

    @Test func textNamesTheRoundsAndTheSpread() {
        let o = NotesTool.run(["bench", "--strategy", "notesHonest", "--seeds", "2", "--rounds", "2", "--jobs", "2", "--flat", "20,60"])
        #expect(o.status == 0, "\(o.stderr)")
        #expect(o.stdout.hasPrefix("notesHonest"))
        #expect(o.stdout.contains(" in 2 rounds; cpu ×"))
        #expect(o.stdout.contains("ns/event run --seed 1 --actions 20→60 ("))
        #expect(o.stdout.contains("shrink (sharedDiff noGhostDeletion, seed 0):"))
    }
}

/// A strategy that leaks state from one run into the next (what bench's determinism check is
/// for): once it has made three servers, every client it makes times its sends out after 1 ms
/// instead of 6 s (timers fire that did not before: other events).
struct LeakySync: SyncStrategy {
    final class Counter: @unchecked Sendable {
        let lock = NSLock()
        var servers = 0
    }
    let counter = Counter()

    var info: StrategyInfo {
        StrategyInfo(name: "leaky", summary: "state shared between runs", contract: [.convergence], arbitration: .serverArrival)
    }
    var transport: Transport { .stream }

    func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        var c = context
        counter.lock.lock()
        let made = counter.servers
        counter.lock.unlock()
        if made > 3 { c.options.sendTimeoutMs = 1 }
        return InstantStrategy().makeClient(c, restoring: durable)
    }

    func makeServer(_ context: ServerContext) -> InstantServer {
        counter.lock.lock()
        counter.servers += 1
        counter.lock.unlock()
        return InstantStrategy().makeServer(context)
    }
}

extension BenchCommandTests {
    /// A strategy whose second sweep differs from its first is refused: the figures would be of
    /// two different workloads, and the difference is a bug the user wants to hear about.
    @Test func sweepsThatDisagreeAreADeterminismBug() {
        let o = NotesTool.run(["bench", "--strategy", "leaky", "--seeds", "3", "--rounds", "2", "--jobs", "1"],
                              strategies: [AnyStrategy(LeakySync())])
        #expect(o.status == 1, "\(o.stdout)\(o.stderr)")
        #expect(o.stderr.contains("error: leaky simulated "))
        #expect(o.stderr.contains("a determinism bug, or state shared between runs"))
    }
}

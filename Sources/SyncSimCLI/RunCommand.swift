import Foundation
import SyncSim

struct RunCommand: Command {
    static let name = "run"
    static let summary = "Run one seeded simulation and check the invariants"
    static let help = """
    USAGE: syncsim run --strategy NAME --seed N [options]

    Generates the schedule for the seed, runs it, and prints the seed, strategy, number of
    events, virtual duration, trace hash, the final state of the server and each client, and
    every invariant violation found.

    OPTIONS:
      --strategy NAME   the strategy to run (required); see 'syncsim list strategies'
      --seed N          the seed (required); the same seed replays the same run, byte for byte
      --clients N       number of clients, 1…26 (default: drawn from the seed, 2 or 3)
      --actions N       number of generated actions, 1…100000 (default 60)
      --no-swarm        uniform mix of every action and fault kind instead of swarm testing
      --trace           also print the run as a numbered story
      --json            print one JSON object (strategy, seed, events, traceHash, violations, …)

    EXIT CODES: 0 no violation, 1 a violation was found, 2 bad usage.

    EXAMPLES:
      syncsim run --strategy instant --seed 42
      syncsim run --strategy instant --seed 42 --clients 3 --actions 200 --json
    """

    static func run(_ args: inout Arguments) throws -> Int32 {
        let strategy = try args.strategy()
        let seed = try args.seed("--seed")
        let clients = try args.int("--clients", in: 1...26)
        let actions = try args.int("--actions", in: 1...100_000)
        let noSwarm = args.flag("--no-swarm")
        let json = args.flag("--json")
        let story = args.flag("--trace")
        try args.finish()
        guard let strategy else {
            throw UsageError("--strategy is required; valid values: \(StrategyRegistry.names.joined(separator: ", "))")
        }
        guard let seed else { throw UsageError("--seed is required (a non-negative whole number)") }
        let gen = WorkloadGenerator(.init(clients: clients, actions: actions ?? 60, swarm: !noSwarm))
        let schedule = gen.generate(seed: seed)
        let result = try simulate(strategy, schedule, seed: seed, trace: story ? .full : .hashOnly)
        if json {
            print(try RunReport(result, schedule: schedule).json())
        } else {
            if story { printStory(result) }
            printSummary(result, schedule: schedule)
        }
        return result.violations.isEmpty ? ExitCode.ok : ExitCode.violation
    }

    static func printStory(_ r: RunResult) {
        for (i, l) in r.trace.enumerated() {
            print(String(format: "%5d  t=%-8@ %@", i + 1, "\(l.time)ms" as NSString, l.text as NSString))
        }
        print("")
    }

    static func printSummary(_ r: RunResult, schedule: Schedule) {
        print("strategy    \(r.strategy)")
        print("seed        \(r.seed)")
        print("clients     \(schedule.options.clients)   actions \(schedule.actions.count)   persistence \(schedule.options.persistence ? "on" : "off")")
        print("events      \(r.events)")
        print("virtual     \(r.virtualDurationMs) ms")
        print("trace hash  \(r.traceHashHex)   (schedule \(schedule.digest))")
        print("settled     " + (r.convergenceMs.map { "\($0) ms after heal" } ?? "no"))
        print("server      \(r.server.count) entities, digest \(StableHasher.digest(r.server))")
        for c in r.clients {
            let subs = c.subscriptions.map { s in
                "\(s.id) \(s.result.map { $0 == s.expected ? "= server" : "≠ server" } ?? "no result")"
            }.joined(separator: ", ")
            print("client \(c.client)    pending \(c.pendingWrites.count); \(subs.isEmpty ? "no subscriptions" : subs)")
        }
        if r.violations.isEmpty {
            print("violations  none")
        } else {
            print("violations  \(r.violations.count)")
            for v in r.violations { print("  \(v)") }
        }
    }
}

/// The JSON shape of `syncsim run --json`.
struct RunReport: Encodable {
    struct V: Encodable {
        var invariant: String
        var timeMs: Int64
        var client: String?
        var entity: UInt32?
        var explanation: String
    }
    struct C: Encodable {
        var client: String
        var pendingWrites: Int
        var subscriptions: [String: Bool]
    }
    var strategy: String
    var seed: UInt64
    var events: Int
    var virtualDurationMs: Int64
    var traceHash: String
    var settled: Bool
    var convergenceMs: Int64?
    var serverEntities: Int
    var serverDigest: String
    var scheduleHash: String
    var actions: Int
    var clients: [C]
    var violations: [V]

    init(_ r: RunResult, schedule: Schedule) {
        strategy = r.strategy
        seed = r.seed
        events = r.events
        virtualDurationMs = r.virtualDurationMs
        traceHash = r.traceHashHex
        settled = r.settled
        convergenceMs = r.convergenceMs
        serverEntities = r.server.count
        serverDigest = StableHasher.digest(r.server)
        scheduleHash = schedule.digest
        actions = schedule.actions.count
        clients = r.clients.map { c in
            C(client: c.client.description, pendingWrites: c.pendingWrites.count,
              subscriptions: Dictionary(uniqueKeysWithValues: c.subscriptions.map { ($0.id.description, $0.result == $0.expected) }))
        }
        violations = r.violations.map { V(invariant: $0.invariant.rawValue, timeMs: $0.time, client: $0.client?.description, entity: $0.entity?.raw, explanation: $0.explanation) }
    }

    func json() throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(self), as: UTF8.self)
    }
}

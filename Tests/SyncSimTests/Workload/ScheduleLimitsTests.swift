import Foundation
import Testing
@testable import SyncSim

/// Every range of `ScheduleLimits` is checked by `compile()`: just inside it compiles, just
/// outside it is a `ScheduleError` naming the path and the range. Nothing traps.
@Suite struct ScheduleLimitsTests {
    static let A = ClientID(0)
    static let todo = EntityID(1)

    /// A small valid schedule with an edit applied.
    static func schedule(_ edit: (inout Schedule) -> Void) -> Schedule {
        var s = Schedule(initial: [InitialEntity(entity: todo, namespace: .todos, values: [])],
                         actions: [TimedAction(at: 10, .update(A, todo, [FieldAssignment(.title, .string("a"))]))])
        edit(&s)
        return s
    }

    static func error(_ s: Schedule) -> ScheduleError? {
        do { _ = try s.compile(); return nil } catch let e as ScheduleError { return e } catch { return ScheduleError(path: "?", "\(error)") }
    }

    /// (name, edit just inside the range, edit just outside, path, words of the message)
    static let options: [(String, @Sendable (inout SimulationOptions) -> Void, @Sendable (inout SimulationOptions) -> Void, String, String)] = [
        ("clients", { $0.clients = 26 }, { $0.clients = 27 }, "options.clients", "in 1…26"),
        ("latency", { $0.latencyMaxMs = 3_600_000 }, { $0.latencyMaxMs = 3_600_001 }, "options.latencyMaxMs", "in 0…3600000 ms"),
        ("negative latency", { $0.latencyMinMs = 0 }, { $0.latencyMinMs = -1 }, "options.latencyMinMs", "in 0…3600000 ms, got -1"),
        ("ppm", { $0.dropPpm = 1_000_000 }, { $0.dropPpm = 1_000_001 }, "options.dropPpm", "in 0…1000000"),
        ("delay", { $0.delayMaxMs = 3_600_000 }, { $0.delayMaxMs = Int64.max }, "options.delayMaxMs", "in 0…3600000 ms"),
        ("skew", { $0.clockSkewMs = [-86_400_000] }, { $0.clockSkewMs = [0, Int64.min] }, "options.clockSkewMs[1]", "in -86400000…86400000 ms"),
        ("skews per client", { $0.clockSkewMs = [1, 2, 3] }, { $0.clockSkewMs = [1, 2, 3, 4] }, "options.clockSkewMs", "at most one skew per client"),
        ("think", { $0.conflictThinkMs = 0 }, { $0.conflictThinkMs = -1 }, "options.conflictThinkMs", "in 0…3600000 ms"),
        ("queue cap", { $0.queueCap = 100_000 }, { $0.queueCap = 0 }, "options.queueCap", "in 1…100000"),
        ("connect timeout", { $0.connectTimeoutMs = 1 }, { $0.connectTimeoutMs = 0 }, "options.connectTimeoutMs", "in 1…3600000 ms"),
        ("detect", { $0.unreachableDetectMs = 3_600_000 }, { $0.unreachableDetectMs = 3_600_001 }, "options.unreachableDetectMs", "in 1…3600000 ms"),
        ("settle", { $0.settleLimitMs = 1_000 }, { $0.settleLimitMs = 999 }, "options.settleLimitMs", "in 1000…86400000 ms"),
        ("max events", { $0.maxEvents = 2_000_000 }, { $0.maxEvents = 1_000_000_000_000 }, "options.maxEvents", "in 1…2000000 events"),
        ("no events", { $0.maxEvents = 1 }, { $0.maxEvents = 0 }, "options.maxEvents", "in 1…2000000 events"),
        ("send timeout", { $0.strategy.sendTimeoutMs = 1_000 }, { $0.strategy.sendTimeoutMs = 0 }, "options.sendTimeoutMs", "in 1000…86400000 ms"),
        ("sync interval", { $0.strategy.syncIntervalMs = 86_400_000 }, { $0.strategy.syncIntervalMs = 0 }, "options.syncIntervalMs", "in 1000…86400000 ms"),
        ("save delay min", { $0.strategy.saveDelayMinMs = 0 }, { $0.strategy.saveDelayMinMs = -1 }, "options.saveDelayMinMs", "in 0…60000 ms"),
        ("save delay max", { $0.strategy.saveDelayMaxMs = 60_000 }, { $0.strategy.saveDelayMaxMs = 60_001 }, "options.saveDelayMaxMs", "in 0…60000 ms"),
        ("save delays inverted", { $0.strategy.saveDelayMinMs = 7; $0.strategy.saveDelayMaxMs = 7 }, { $0.strategy.saveDelayMinMs = 8; $0.strategy.saveDelayMaxMs = 7 }, "options.saveDelayMaxMs", "saveDelayMinMs ≤ saveDelayMaxMs"),
    ]

    @Test(arguments: options.indices)
    func optionRanges(index: Int) {
        let (name, inside, outside, path, says) = Self.options[index]
        #expect(Self.error(Self.schedule { inside(&$0.options) }) == nil, "\(name): just inside the range must compile")
        let e = Self.error(Self.schedule { outside(&$0.options) })
        #expect(e?.path == path, "\(name): \(String(describing: e))")
        #expect(e?.message.contains(says) == true, "\(name): \(String(describing: e))")
    }

    @Test func actionTimes() {
        #expect(Self.error(Self.schedule { $0.actions[0].at = 86_400_000 }) == nil)
        let e = Self.error(Self.schedule { $0.actions[0].at = Int64.max })
        #expect(e?.path == "actions[0].at" && e?.message.contains("in 0…86400000 ms, got 9223372036854775807") == true, "\(String(describing: e))")
        #expect(Self.error(Self.schedule { $0.actions[0].at = Int64.min })?.path == "actions[0].at")
    }

    @Test func typingBursts() {
        func typing(_ text: String, every: Int64, at: Int64 = 0) -> ScheduleError? {
            Self.error(Self.schedule { $0.actions = [TimedAction(at: at, .type(Self.A, Self.todo, .title, text, everyMs: every))] })
        }
        #expect(typing(String(repeating: "a", count: 256), every: 60_000) == nil)
        #expect(typing(String(repeating: "a", count: 257), every: 10)?.path == "actions[0].text")
        #expect(typing(String(repeating: "e\u{301}\u{302}\u{303}\u{304}", count: 200), every: 10)?.path == "actions[0].text", "1,024 bytes is the byte cap")
        #expect(typing("ab", every: 60_001)?.message.contains("in 0…60000 ms") == true)
        #expect(typing("ab", every: -1)?.path == "actions[0].everyMs")
        // The sum at + (n - 1) × everyMs is checked, not just its parts.
        #expect(typing("ab", every: 1, at: 86_399_999) == nil)
        let e = typing("abc", every: 1, at: 86_399_999)
        #expect(e?.path == "actions[0].everyMs" && e?.message.contains("86399999 + 2 × 1 = 86400001") == true, "\(String(describing: e))")
    }

    @Test func entityIDsAndValues() {
        #expect(Self.error(Self.schedule { $0.initial[0].entity = EntityID(999_999); $0.actions = [] }) == nil)
        let e = Self.error(Self.schedule { $0.initial[0].entity = EntityID(50_000_000); $0.actions = [] })
        #expect(e?.path == "initial[0].entity" && e?.message.contains("in 0…999999, got 50000000") == true, "\(String(describing: e))")
        let long = Self.error(Self.schedule { $0.actions[0] = TimedAction(at: 0, .update(Self.A, Self.todo, [FieldAssignment(.title, .string(String(repeating: "x", count: 4_097)))])) })
        #expect(long?.path == "actions[0].set.title" && long?.message.contains("at most 4096 UTF-8 bytes") == true, "\(String(describing: long))")
        #expect(Self.error(Self.schedule { $0.actions[0] = TimedAction(at: 0, .update(Self.A, Self.todo, [FieldAssignment(.title, .string(String(repeating: "x", count: 4_096)))])) }) == nil)
        let big = Self.error(Self.schedule { $0.actions[0] = TimedAction(at: 0, .update(Self.A, Self.todo, [FieldAssignment(.priority, .int(Int.max))])) })
        #expect(big?.path == "actions[0].set.priority", "\(String(describing: big))")
    }

    @Test func subscriptionIDsAreNeverReused() {
        let q = Query(.todos)
        let reopen = Self.schedule {
            $0.actions = [TimedAction(at: 0, .subscribe(Self.A, SubscriptionID(1), q)), TimedAction(at: 1, .unsubscribe(Self.A, SubscriptionID(1))),
                          TimedAction(at: 2, .subscribe(Self.A, SubscriptionID(1), q))]
        }
        let e = Self.error(reopen)
        #expect(e?.path == "actions[2].sub" && e?.message.contains("unique") == true, "\(String(describing: e))")
        var fresh = reopen
        fresh.actions[2] = TimedAction(at: 2, .subscribe(Self.A, SubscriptionID(2), q))
        #expect(Self.error(fresh) == nil)
    }

    /// Every generated schedule is inside every range (the limits never reject the fuzzer's own work).
    @Test func generatedSchedulesCompile() throws {
        for seed in UInt64(0)..<40 { _ = try WorkloadGenerator().generate(seed: seed).compile() }
        _ = try WorkloadGenerator(.init(actions: 3_000)).generate(seed: 7).compile()
    }
}

import Testing
@testable import SyncSim

/// The shrinker keeps the reason a schedule fails (the culprit, and no causally impossible
/// actions) and simplifies crash points. Driven by fake run closures: each test states exactly
/// which schedules fail and why.
@Suite struct SameReasonShrinkTests {
    let A = ClientID(0), B = ClientID(1)
    let e = EntityID(10)

    func schedule(_ actions: [TimedAction]) -> Schedule {
        var o = SimulationOptions()
        o.clients = 2
        return Schedule(options: o, initial: [], actions: actions)
    }

    func violation(_ culprit: String) -> [Violation] {
        var v = Violation(.noResurrection, at: 0, "resurrected")
        v.culprit = culprit
        return [v]
    }

    /// An admin upsert resurrects the entity; without it a client create would (another reason).
    @Test func keepsTheCulprit() throws {
        let original = schedule([
            TimedAction(at: 0, .create(B, e, .posts, [])),
            TimedAction(at: 100, .delete(A, e)),
            TimedAction(at: 200, .serverUpdate(e, [FieldAssignment(.content, .string("x"))])),
            TimedAction(at: 300, .create(B, e, .posts, [])),
        ])
        let run: (Schedule) -> [Violation]? = { s in
            let acts = s.actions.map(\.action)
            if acts.contains(where: { if case .serverUpdate = $0 { return true } else { return false } }) { return self.violation("admin update") }
            if acts.filter({ if case .create = $0 { return true } else { return false } }).count >= 1 { return self.violation("client create") }
            return []
        }
        var shrinker = Shrinker(invariant: .noResurrection, run: run)
        let outShrunk = shrinker.shrink(original)
        let out = try #require(outShrunk)
        #expect(out.violation.culprit == "admin update")
        #expect(out.schedule.actions.contains { if case .serverUpdate = $0.action { return true } else { return false } })
        // Without the culprit rule any create would do: the admin upsert goes.
        var loose = Shrinker(invariant: .noResurrection, run: run)
        loose.keepsCulprit = false
        let anyShrunk = loose.shrink(original)
        let any = try #require(anyShrunk)
        #expect(!any.schedule.actions.contains { if case .serverUpdate = $0.action { return true } else { return false } })
    }

    /// A failure that only needs the delete must not lose the create that makes it possible.
    @Test func neverProducesCausallyImpossibleActions() throws {
        let original = schedule([
            TimedAction(at: 0, .create(B, e, .posts, [])),
            TimedAction(at: 100, .delete(A, e)),
        ])
        var shrinker = Shrinker(invariant: .noResurrection, run: { s in
            s.actions.contains { if case .delete = $0.action { return true } else { return false } } ? self.violation("admin update") : []
        })
        let outShrunk = shrinker.shrink(original)
        let out = try #require(outShrunk)
        #expect(out.schedule.actions.count == 2, "\(out.schedule.actions)")
        #expect(Shrinker.impossibleActions(out.schedule).isEmpty)
        #expect(Shrinker.impossibleActions(schedule([TimedAction(at: 100, .delete(A, e))])) == ["delete 10"])
    }

    @Test func simplifiesCrashPoints() throws {
        let original = schedule([TimedAction(at: 0, .crash(A, .commitUnknown))])
        func isCrash(_ a: Action, _ ok: Set<String>) -> Bool {
            switch a {
            case .restart: return ok.contains("restart")
            case .crash(_, let p): return ok.contains(p.rawValue)
            default: return false
            }
        }
        for (failing, simplest) in [(Set(["restart", "afterSend", "duringApply", "commitUnknown"]), Action.restart(A)),
                                    (["duringApply", "commitUnknown"], .crash(A, .duringApply)),
                                    (["commitUnknown"], .crash(A, .commitUnknown))] {
            var shrinker = Shrinker(invariant: .noLostAcknowledgedWrite, run: { s in
                s.actions.contains { isCrash($0.action, failing) } ? [Violation(.noLostAcknowledgedWrite, at: 0, "lost")] : []
            })
            let outShrunk = shrinker.shrink(original)
        let out = try #require(outShrunk)
            #expect(out.schedule.actions.map(\.action) == [simplest])
        }
    }
}

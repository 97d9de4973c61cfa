/// A schedule checked and lowered into the steps the simulator executes: entity namespaces
/// resolved, typing bursts expanded into keystrokes, write ids assigned.
public struct CompiledSchedule: Sendable {
    public enum Step: Sendable {
        /// The app launches: the client learns its device's network state.
        case boot(ClientID)
        case user(ClientID, UserCommand)
        case admin(UserWrite)
        case offline(ClientID)
        case online(ClientID)
        case unreachable(ClientID)
        case reachable(ClientID)
        case restart(ClientID)
        /// Arms a protocol-point fault on the client.
        case crash(ClientID, CrashPoint)
        /// A `bulkCreate`: one write per entity, handed to the client one after the other at
        /// the same instant, told as one line of the story (`Simulator.bulkCommand`).
        case bulk(ClientID, [UserWrite])
        /// The client's user switches to a tenant (`Action.switchTenant`).
        case switchTenant(ClientID, TenantID)
        /// The client's user logs out, dropping the tenant's local data (`Action.logout`).
        case logout(ClientID)
    }

    public struct Entry: Sendable {
        public var time: Int64
        public var step: Step
        /// Index of the schedule action this step came from (nil for boot).
        public var source: Int?
    }

    public var entries: [Entry]
    public var writeCount: Int
    /// Namespace of every entity the schedule mentions, by id.
    public var namespaces: [EntityID: NamespaceID]
    /// Whether any step switches tenant or logs out: only then does the simulator route by
    /// tenant and run the isolation oracle (a run without is exactly as before).
    public var usesTenants = false
}

/// A schedule that cannot run, with the JSON-path-like location of the problem.
public struct ScheduleError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, _ message: String) { self.path = path; self.message = message }
    public var description: String { "\(path): \(message)" }
}

extension Schedule {
    /// Checks the schedule and lowers it. Every problem is a `ScheduleError` naming where it is
    /// and what was expected; nothing here traps.
    public func compile() throws -> CompiledSchedule {
        try Schema.$describing.withValue(schema) { try compileNamed() }
    }

    private func compileNamed() throws -> CompiledSchedule {
        let o = options
        let sc = schema
        try Self.checkOptions(o)

        var ns: [EntityID: NamespaceID] = [:]
        for (i, e) in initial.enumerated() {
            func p() -> String { "initial[\(i)]" }
            try Self.check(e.entity, path: "\(p()).entity")
            if ns[e.entity] != nil { throw ScheduleError(path: "\(p()).entity", "entity \(e.entity.raw) is defined twice") }
            guard sc.contains(e.namespace) else { throw ScheduleError(path: "\(p()).namespace", "namespace \(e.namespace.raw) is not in schema \(sc.name)") }
            try Self.check(e.values, e.namespace, sc, path: "\(p()).set")
            ns[e.entity] = e.namespace
        }
        for (i, e) in initial.enumerated() {
            for (j, l) in e.links.enumerated() {
                func p() -> String { "initial[\(i)].links[\(j)]" }
                guard sc.contains(l.link), sc.source(of: l.link) == e.namespace else {
                    throw ScheduleError(path: p(), "\(e.namespace.name) has no link \(l.link.name)")
                }
                try Self.check(l.target, path: "\(p()).target")
                guard ns[l.target] == sc.target(of: l.link) else {
                    throw ScheduleError(path: "\(p()).target", "expected an initial \(sc.target(of: l.link).singular) entity, got \(l.target.raw)")
                }
                if !sc.isMany(l.link), e.links[..<j].contains(where: { $0.link == l.link }) {
                    throw ScheduleError(path: p(), "\(l.link.name) is a cardinality-one link: give it one target")
                }
            }
        }

        var entries: [CompiledSchedule.Entry] = []
        // One step per action at least (typing bursts add more): room for them at once.
        entries.reserveCapacity(o.clients + actions.count)
        for c in 0..<o.clients { entries.append(.init(time: 0, step: .boot(ClientID(c)), source: nil)) }
        var nextWrite: UInt32 = 0
        var nextQuery: UInt32 = 0
        var burst: UInt32 = 0
        var subs: [SubscriptionID: ClientID] = [:]
        var usedSubs: Set<SubscriptionID> = []
        var lastTime: Int64 = 0
        var usesTenants = false
        var owners = TenantOwnership(clients: o.clients)

        func write(_ ops: [Op], burst: UInt32? = nil) -> UserWrite {
            defer { nextWrite += 1 }
            return UserWrite(id: WriteID(nextWrite), ops: ops, burst: burst)
        }

        for (i, a) in actions.enumerated() {
            // The path of a problem, built only when one is thrown (building it per action and
            // per value was most of what compiling a valid schedule cost).
            func p() -> String { "actions[\(i)]" }
            guard ScheduleLimits.times.contains(a.at) else {
                throw ScheduleError(path: "\(p()).at", ScheduleLimits.outOfRange("a time", a.at, ScheduleLimits.times, unit: " ms"))
            }
            guard a.at >= lastTime else {
                throw ScheduleError(path: "\(p()).at", "time goes backwards: \(a.at) ms after \(lastTime) ms (actions must be in time order)")
            }
            lastTime = a.at
            if let c = a.action.client, c.index >= o.clients {
                throw ScheduleError(path: "\(p()).client", "client \(c) does not exist (options.clients = \(o.clients))")
            }
            func known(_ e: EntityID, _ field: String = "entity") throws -> NamespaceID {
                try Self.check(e, path: "\(p()).\(field)")
                guard let n = ns[e] else {
                    throw ScheduleError(path: "\(p()).\(field)", "entity \(e.raw) is referenced before it is created")
                }
                return n
            }
            func new(_ e: EntityID, _ n: NamespaceID) throws {
                try Self.check(e, path: "\(p()).entity")
                if ns[e] != nil { throw ScheduleError(path: "\(p()).entity", "entity \(e.raw) is created twice (ids are never reused)") }
                ns[e] = n
            }
            func linkCheck(_ e: EntityID, _ l: LinkID, _ t: EntityID) throws {
                let n = try known(e)
                guard sc.contains(l), sc.source(of: l) == n else { throw ScheduleError(path: "\(p()).link", "\(n.name) has no link \(l.name)") }
                let tn = try known(t, "target")
                guard tn == sc.target(of: l) else { throw ScheduleError(path: "\(p()).target", "expected a \(sc.target(of: l).singular), got a \(tn.singular)") }
            }
            let t = a.at
            if owners.active {
                // Tenants never share entities (`TenantOwnership`).
                let es = a.action.entities
                if case .create = a.action {} else if case .serverCreate = a.action {} else if case .bulkCreate = a.action {} else {
                    for (k, e) in es.enumerated() where ns[e] != nil { try owners.check(e, by: a.action.client, path: "\(p()).\(k == 0 ? "entity" : "target")") }
                }
            }
            switch a.action {
            case .create(let c, let e, let n, let vals):
                guard sc.contains(n) else { throw ScheduleError(path: "\(p()).namespace", "namespace \(n.raw) is not in schema \(sc.name)") }
                try Self.check(vals, n, sc, path: "\(p()).set")
                try new(e, n)
                owners.created(e, by: c)
                entries.append(.init(time: t, step: .user(c, .write(write([.create(e, n, vals)]))), source: i))
            case .update(let c, let e, let vals):
                let n = try known(e)
                guard !vals.isEmpty else { throw ScheduleError(path: "\(p()).set", "expected at least one field") }
                try Self.check(vals, n, sc, path: "\(p()).set")
                entries.append(.init(time: t, step: .user(c, .write(write([.update(e, n, vals)]))), source: i))
            case .delete(let c, let e):
                let n = try known(e)
                entries.append(.init(time: t, step: .user(c, .write(write([.delete(e, n)]))), source: i))
            case .link(let c, let e, let l, let tg):
                try linkCheck(e, l, tg)
                entries.append(.init(time: t, step: .user(c, .write(write([.link(e, l, tg)]))), source: i))
            case .unlink(let c, let e, let l, let tg):
                try linkCheck(e, l, tg)
                entries.append(.init(time: t, step: .user(c, .write(write([.unlink(e, l, tg)]))), source: i))
            case .type(let c, let e, let f, let text, let every):
                let n = try known(e)
                guard sc.contains(f), sc.namespace(of: f) == n else { throw ScheduleError(path: "\(p()).field", "\(f.name) is not a field of \(n.name)") }
                guard sc.kind(of: f) == .string else { throw ScheduleError(path: "\(p()).field", "expected a string field to type into, got \(f.name)") }
                guard !text.isEmpty else { throw ScheduleError(path: "\(p()).text", "expected at least one character") }
                let chars = text.count
                guard chars <= ScheduleLimits.maxTypedCharacters, text.utf8.count <= 4 * ScheduleLimits.maxTypedCharacters else {
                    throw ScheduleError(path: "\(p()).text", "expected 1…\(ScheduleLimits.maxTypedCharacters) characters (at most \(4 * ScheduleLimits.maxTypedCharacters) UTF-8 bytes) to type, got \(chars) characters (\(text.utf8.count) bytes); split the burst into several type actions")
                }
                guard ScheduleLimits.typingGaps.contains(every) else {
                    throw ScheduleError(path: "\(p()).everyMs", ScheduleLimits.outOfRange("a gap between keystrokes", every, ScheduleLimits.typingGaps, unit: " ms"))
                }
                // Both factors are bounded above, so this cannot overflow.
                let end = t + Int64(chars - 1) * every
                owners.typing(c, until: end)
                guard end <= ScheduleLimits.times.upperBound else {
                    throw ScheduleError(path: "\(p()).everyMs", "the burst's last keystroke at \(t) + \(chars - 1) × \(every) = \(end) ms is after \(ScheduleLimits.times.upperBound) ms, the last time a schedule may use; type fewer characters or faster")
                }
                burst += 1
                var prefix = ""
                for (k, ch) in text.enumerated() {
                    prefix.append(ch)
                    let w = write([.update(e, n, [FieldAssignment(f, .string(prefix))])], burst: burst)
                    entries.append(.init(time: t + Int64(k) * every, step: .user(c, .write(w)), source: i))
                }
            case .serverCreate(let e, let n, let vals):
                guard sc.contains(n) else { throw ScheduleError(path: "\(p()).namespace", "namespace \(n.raw) is not in schema \(sc.name)") }
                try Self.check(vals, n, sc, path: "\(p()).set")
                try new(e, n)
                entries.append(.init(time: t, step: .admin(write([.create(e, n, vals)])), source: i))
            case .serverUpdate(let e, let vals):
                let n = try known(e)
                guard !vals.isEmpty else { throw ScheduleError(path: "\(p()).set", "expected at least one field") }
                try Self.check(vals, n, sc, path: "\(p()).set")
                entries.append(.init(time: t, step: .admin(write([.update(e, n, vals)])), source: i))
            case .serverDelete(let e):
                let n = try known(e)
                entries.append(.init(time: t, step: .admin(write([.delete(e, n)])), source: i))
            case .subscribe(let c, let s, let q):
                if usedSubs.contains(s) {
                    throw ScheduleError(path: "\(p()).sub", "subscription \(s.raw) is opened twice; subscription ids are unique in a schedule (use a new number)")
                }
                usedSubs.insert(s)
                try Self.check(q, sc, path: "\(p()).query")
                subs[s] = c
                entries.append(.init(time: t, step: .user(c, .subscribe(s, q)), source: i))
            case .unsubscribe(let c, let s):
                guard subs[s] == c else {
                    throw ScheduleError(path: "\(p()).sub", "client \(c) has no subscription \(s.raw) to close")
                }
                subs[s] = nil
                entries.append(.init(time: t, step: .user(c, .unsubscribe(s)), source: i))
            case .queryOnce(let c, let q):
                try Self.check(q, sc, path: "\(p()).query")
                nextQuery += 1
                entries.append(.init(time: t, step: .user(c, .queryOnce(QueryRequestID(nextQuery), q)), source: i))
            case .goOffline(let c): entries.append(.init(time: t, step: .offline(c), source: i))
            case .goOnline(let c): entries.append(.init(time: t, step: .online(c), source: i))
            case .serverUnreachable(let c): entries.append(.init(time: t, step: .unreachable(c), source: i))
            case .serverReachable(let c): entries.append(.init(time: t, step: .reachable(c), source: i))
            case .restart(let c): entries.append(.init(time: t, step: .restart(c), source: i))
            case .forceSync(let c, let ch): entries.append(.init(time: t, step: .user(c, .forceSync(ch)), source: i))
            case .syncNow(let c): entries.append(.init(time: t, step: .user(c, .syncNow), source: i))
            case .dropOldestWrite(let c): entries.append(.init(time: t, step: .user(c, .dropOldestWrite), source: i))
            case .crash(let c, let point): entries.append(.init(time: t, step: .crash(c, point), source: i))
            case .bulkCreate(let c, let first, let count, let n, let vals):
                guard sc.contains(n) else { throw ScheduleError(path: "\(p()).namespace", "namespace \(n.raw) is not in schema \(sc.name)") }
                guard ScheduleLimits.bulkCounts.contains(count) else {
                    throw ScheduleError(path: "\(p()).count", ScheduleLimits.outOfRange("a number of entities to create", count, ScheduleLimits.bulkCounts) + "; split a larger batch into several bulkCreate actions")
                }
                try Self.check(first, path: "\(p()).firstEntity")
                // Both bounded: no overflow.
                let last = UInt64(first.raw) + UInt64(count) - 1
                guard last <= UInt64(ScheduleLimits.entityIDs.upperBound) else {
                    throw ScheduleError(path: "\(p()).count", "the ids \(first.raw)…\(last) end after \(ScheduleLimits.entityIDs.upperBound), the largest entity id; start lower or create fewer")
                }
                try Self.check(vals, n, sc, path: "\(p()).set")
                var ws: [UserWrite] = []
                ws.reserveCapacity(count)
                for k in 0..<count {
                    let e = EntityID(first.raw + UInt32(k))
                    if ns[e] != nil {
                        throw ScheduleError(path: "\(p()).firstEntity", "entity \(e.raw) (number \(k + 1) of the \(count) this bulkCreate makes, from \(first.raw)) already exists (ids are never reused); start after the ids in use")
                    }
                    ns[e] = n
                    owners.created(e, by: c)
                    ws.append(write([.create(e, n, vals)]))
                }
                entries.append(.init(time: t, step: .bulk(c, ws), source: i))
            case .switchTenant(let c, let tenant):
                guard tenant.index <= ScheduleLimits.maxTenant else {
                    throw ScheduleError(path: "\(p()).tenant", ScheduleLimits.outOfRange("a tenant", tenant.index, 0...ScheduleLimits.maxTenant))
                }
                usesTenants = true
                try owners.switched(c, to: tenant, at: t, path: "\(p()).at")
                entries.append(.init(time: t, step: .switchTenant(c, tenant), source: i))
            case .logout(let c):
                usesTenants = true
                try owners.switched(c, to: nil, at: t, path: "\(p()).at")
                entries.append(.init(time: t, step: .logout(c), source: i))
            }
        }
        return CompiledSchedule(entries: entries, writeCount: Int(nextWrite), namespaces: ns, usesTenants: usesTenants)
    }

    static func check(_ vals: [FieldAssignment], _ n: NamespaceID, _ sc: Schema, path: @autoclosure () -> String) throws {
        for v in vals {
            guard sc.contains(v.field), sc.namespace(of: v.field) == n else {
                throw ScheduleError(path: "\(path()).\(v.field.name)", "\(v.field.name) is not a field of \(n.name) (fields: \(sc.fields(of: n).map { sc.name(of: $0) }.joined(separator: ", ")))")
            }
            guard v.value.kind == sc.kind(of: v.field) else {
                throw ScheduleError(path: "\(path()).\(v.field.name)", "expected a \(sc.kind(of: v.field)) value, got \(JSONText.clipped(v.value.description))")
            }
            try check(v.value, path: "\(path()).\(v.field.name)")
        }
    }

    /// A value's size and range: strings are copied into every store and message that holds
    /// them, so they are bounded; integers stay exactly representable in JSON.
    static func check(_ v: FieldValue, path: @autoclosure () -> String) throws {
        switch v {
        case .string(let s) where s.utf8.count > ScheduleLimits.maxStringBytes:
            throw ScheduleError(path: path(), "expected a string of at most \(ScheduleLimits.maxStringBytes) UTF-8 bytes, got \(s.utf8.count) bytes")
        case .int(let i) where !ScheduleLimits.intValues.contains(i):
            throw ScheduleError(path: path(), ScheduleLimits.outOfRange("an integer", i, ScheduleLimits.intValues))
        default: break
        }
    }

    static func check(_ e: EntityID, path: @autoclosure () -> String) throws {
        guard ScheduleLimits.entityIDs.contains(e.raw) else {
            throw ScheduleError(path: path(), ScheduleLimits.outOfRange("an entity id", e.raw, ScheduleLimits.entityIDs))
        }
    }

    /// Every option inside its `ScheduleLimits` range, with the range in the message.
    static func checkOptions(_ o: SimulationOptions) throws {
        func within<T: BinaryInteger>(_ name: String, _ v: T, _ r: ClosedRange<T>, _ what: String, unit: String = " ms") throws {
            guard r.contains(v) else { throw ScheduleError(path: "options.\(name)", ScheduleLimits.outOfRange(what, v, r, unit: unit)) }
        }
        try within("clients", o.clients, ScheduleLimits.clients, "a number of clients", unit: "")
        try within("latencyMinMs", o.latencyMinMs, ScheduleLimits.durations, "a latency")
        try within("latencyMaxMs", o.latencyMaxMs, ScheduleLimits.durations, "a latency")
        guard o.latencyMaxMs >= o.latencyMinMs else {
            throw ScheduleError(path: "options.latencyMaxMs", "expected latencyMinMs ≤ latencyMaxMs, got \(o.latencyMinMs) > \(o.latencyMaxMs)")
        }
        try within("dropPpm", o.dropPpm, ScheduleLimits.ppm, "parts per million", unit: "")
        try within("duplicatePpm", o.duplicatePpm, ScheduleLimits.ppm, "parts per million", unit: "")
        try within("delayPpm", o.delayPpm, ScheduleLimits.ppm, "parts per million", unit: "")
        try within("delayMaxMs", o.delayMaxMs, ScheduleLimits.durations, "an extra delay")
        guard o.clockSkewMs.count <= o.clients else {
            throw ScheduleError(path: "options.clockSkewMs", "expected at most one skew per client (\(o.clients)), got \(o.clockSkewMs.count)")
        }
        for (i, s) in o.clockSkewMs.enumerated() where !ScheduleLimits.skews.contains(s) {
            throw ScheduleError(path: "options.clockSkewMs[\(i)]", ScheduleLimits.outOfRange("a clock skew", s, ScheduleLimits.skews, unit: " ms"))
        }
        try within("conflictThinkMs", o.conflictThinkMs, ScheduleLimits.durations, "a think time")
        try within("queueCap", o.queueCap, ScheduleLimits.queueCaps, "a queue cap", unit: "")
        try within("connectTimeoutMs", o.connectTimeoutMs, ScheduleLimits.timeouts, "a connect timeout")
        try within("unreachableDetectMs", o.unreachableDetectMs, ScheduleLimits.timeouts, "a detection delay")
        try within("settleLimitMs", o.settleLimitMs, ScheduleLimits.settleLimits, "a settle limit")
        try within("maxEvents", o.maxEvents, ScheduleLimits.maxEvents, "an event bound", unit: " events")
        try within("sendTimeoutMs", o.strategy.sendTimeoutMs, ScheduleLimits.intervals, "a send timeout")
        try within("syncIntervalMs", o.strategy.syncIntervalMs, ScheduleLimits.intervals, "a sync interval")
        try within("saveDelayMinMs", o.strategy.saveDelayMinMs, ScheduleLimits.saveDelays, "a save delay")
        try within("saveDelayMaxMs", o.strategy.saveDelayMaxMs, ScheduleLimits.saveDelays, "a save delay")
        try within("pushBatchSize", o.strategy.pushBatchSize, ScheduleLimits.syncBatchSizes, "rows per push batch", unit: "")
        try within("pullPageSize", o.strategy.pullPageSize, ScheduleLimits.syncBatchSizes, "rows per pull page", unit: "")
        guard o.strategy.saveDelayMinMs <= o.strategy.saveDelayMaxMs else {
            throw ScheduleError(path: "options.saveDelayMaxMs", "expected saveDelayMinMs ≤ saveDelayMaxMs, got \(o.strategy.saveDelayMinMs) > \(o.strategy.saveDelayMaxMs)")
        }
    }

    /// A query's namespace, filter and include must be the schema's.
    static func check(_ q: Query, _ sc: Schema, path: String) throws {
        guard sc.contains(q.namespace) else { throw ScheduleError(path: "\(path).namespace", "namespace \(q.namespace.raw) is not in schema \(sc.name)") }
        if let f = q.filter {
            guard sc.contains(f.field), sc.namespace(of: f.field) == q.namespace else {
                throw ScheduleError(path: "\(path).where", "\(f.field.name) is not a field of \(q.namespace.name)")
            }
            guard f.value.kind == sc.kind(of: f.field) else {
                throw ScheduleError(path: "\(path).where", "wrong value type for \(f.field.name)")
            }
            try check(f.value, path: "\(path).where")
        }
        try QueryChecks.check(q, sc, path: path)
    }
}

/// Turns a seed into a schedule.
///
/// **Swarm testing** (Groce et al. 2012; FoundationDB, TigerBeetle): each seed first draws which
/// action and fault kinds are enabled at all and their weights and rates (from the `swarm`
/// stream), then the actions (from the `workload` stream). Rare combinations, such as no network
/// faults but heavy typing and restarts, therefore occur often. With swarm off, every kind is on
/// with equal weight and faults at fixed moderate rates.
///
/// The workload is shaped after the seed documents: profiles with and without posts (partial
/// views), todos edited concurrently offline, typing bursts, deletes racing edits, a back-office
/// writer, restarts and reconnects. It follows the configured schema through the roles its
/// namespaces play (`Roles`): link targets play profiles, link sources play posts, the first
/// namespace outside every link plays todos. On `Schema.default` the roles are exactly those
/// namespaces and the draws are the ones this generator always made, so a seed names the same
/// schedule it always did.
public struct WorkloadGenerator: Sendable {
    /// The kinds of step the generator can emit; swarm testing switches them on and off.
    public enum Kind: String, CaseIterable, Sendable, Codable {
        case create, update, concurrentEdit, typing, delete, link, serverWrite, subscribe, queryOnce
        case offlineWindow, unreachableWindow, partition, restart, forceSync
        case messageFaults, clockSkew
    }

    public struct Config: Sendable, Hashable {
        public var clients: Int?
        public var actions = 60
        public var swarm = true
        /// The data model schedules are generated for.
        public var schema: Schema = .default
        /// Whether swarm also draws the `Stress` profile (small caps, long offline bursts, long
        /// runs, protocol-point crashes). On by default; `syncsim bench` turns it off so its
        /// standard workload, and the action counts it names, stay comparable across versions.
        public var stress = true
        /// Whether schedules also hold plain "sync now" taps (seed 004 §2.2), drawn from their own
        /// stream after the rest, so every other action of a seed stays where it was. Off by
        /// default: only `pushPull` has the button, and a schedule is shared by every strategy,
        /// so drawing it everywhere would change the other strategies' traces.
        public var syncNow = false
        /// Whether schedules also hold one or two small `bulkCreate`s (2…24 entities of the
        /// primary namespace, ids after every other) and `pushPull` pushes and pulls in small
        /// batches and pages (1…8 rows), drawn from their own stream after the rest, so every
        /// other action of a seed stays where it was. Off by default, so seeds keep their traces.
        public var bulk = false
        /// Whether schedules also draw the user choices otherwise left to scenario files (seed
        /// 003): the `merge` conflict policy and "drop oldest" taps, from their own stream after
        /// the rest (`WorkloadGenerator+UserChoices.swift`). Off by default for the same reason as
        /// `syncNow`: strategies without them would see changed traces.
        public var userChoices = false
        /// Whether later subscriptions also draw the richer query forms (`where` with
        /// comparisons, `$in` and `or`, `limit`, include trees of up to four levels through link
        /// cycles: `Query.richMenu`). Off by default, so the default schema's schedules stay
        /// what they were; always on for schemas with more than one link (the blog), whose
        /// cycles only these queries reach.
        public var richQueries = false
        /// Tenants the schedules use (2…16): switches and logouts drawn from their own stream
        /// after the rest (`WorkloadGenerator+Tenants.swift`). 0 (the default) draws none, so
        /// default schedules and traces are unchanged.
        public var tenants = 0
        public init(clients: Int? = nil, actions: Int = 60, swarm: Bool = true, schema: Schema = .default, stress: Bool = true) {
            self.clients = clients
            self.actions = actions
            self.swarm = swarm
            self.schema = schema
            self.stress = stress
        }
    }

    /// The parts the schema's namespaces play in the workload.
    struct Roles: Sendable {
        let schema: Schema
        /// Every namespace, in id order.
        let all: [NamespaceID]
        /// Namespaces that links point to (profiles), in id order.
        let parents: [NamespaceID]
        /// Namespaces with outgoing links that no link points to (posts).
        let children: [NamespaceID]
        /// Namespaces outside every link (todos).
        let plain: [NamespaceID]
        /// What every client subscribes to and `queryOnce` reads: the first plain namespace, or
        /// the first namespace.
        let primary: NamespaceID
        /// Typing targets: a namespace with a string field, preferably the primary one; and an
        /// alternative among the children (posts), drawn one time in three.
        let typingMain: NamespaceID?
        let typingAlt: NamespaceID?

        /// The richer queries later subscriptions also draw from (empty unless asked for).
        let rich: [Query]

        init(_ schema: Schema, rich: Bool = false) {
            self.schema = schema
            self.rich = rich ? Query.richMenu(schema) : []
            all = schema.namespaceIDs
            let targets = Set(schema.linkIDs.map { schema.target(of: $0) })
            let sources = Set(schema.linkIDs.map { schema.source(of: $0) })
            parents = all.filter { targets.contains($0) }
            children = all.filter { sources.contains($0) && !targets.contains($0) }
            plain = all.filter { !targets.contains($0) && !sources.contains($0) }
            primary = plain.first ?? all[0]
            func hasText(_ n: NamespaceID) -> Bool { schema.fields(of: n).contains { schema.kind(of: $0) == .string } }
            typingMain = hasText(primary) ? primary : all.first(where: hasText)
            typingAlt = children.first(where: hasText) ?? typingMain
        }

        /// The queries each client draws its initial subscriptions from; the first one is
        /// everyone's. On the default schema: todos, profiles, posts with author, profiles with
        /// posts, todos where done == false.
        var initialMenu: [Query] {
            var menu = [Query(primary)]
            for p in parents where p != primary { menu.append(Query(p)) }
            menu += linkMenu
            for n in plain {
                if let b = schema.fields(of: n).first(where: { schema.kind(of: $0) == .bool }) {
                    menu.append(Query(n, where: FieldAssignment(b, .bool(false))))
                }
            }
            for n in plain.dropFirst() { menu.append(Query(n)) }
            return menu
        }

        /// Queries through links, in both directions.
        var linkMenu: [Query] {
            schema.linkIDs.map { Query(schema.source(of: $0), include: .forward($0)) }
                + schema.linkIDs.map { Query(schema.target(of: $0), include: .reverse($0)) }
        }

        /// What a later `subscribe` draws from: parents and the link queries (partial views).
        var laterMenu: [Query] {
            let m = parents.filter { $0 != primary }.map { Query($0) } + linkMenu + rich
            return m.isEmpty ? [Query(primary)] : m
        }
    }

    /// What swarm drew for one seed (reported in coverage).
    public struct Swarm: Sendable, Hashable {
        public var enabled: [Kind]
        public var weights: [Kind: Int]
    }

    public let config: Config
    public init(_ config: Config = Config()) { self.config = config }

    public func swarm(seed: UInt64) -> Swarm {
        var r = SimRandom(seed: seed).fork(.swarm)
        var weights: [Kind: Int] = [:]
        var enabled: [Kind] = []
        for k in Kind.allCases {
            let on = !config.swarm || r.below(2) == 0
            let w = config.swarm ? 1 + Int(r.below(8)) : 4
            if on { enabled.append(k); weights[k] = w }
        }
        // A schedule with no writes tests nothing: keep at least updates.
        if !enabled.contains(.update) { enabled.append(.update); weights[.update] = 4 }
        return Swarm(enabled: enabled, weights: weights)
    }

    public func generate(seed: UInt64) -> Schedule {
        let sw = swarm(seed: seed)
        var knobs = SimRandom(seed: seed).fork(.custom(0x6b6e_6f62))
        var r = SimRandom(seed: seed).fork(.workload)
        var o = SimulationOptions()
        o.clients = config.clients ?? 2 + Int(knobs.below(2))
        o.persistence = knobs.below(5) != 0
        o.conflictPolicy = ConflictPolicy.generated[knobs.index(ConflictPolicy.generated.count)]
        o.latencyMinMs = 5 + Int64(knobs.below(20))
        o.latencyMaxMs = o.latencyMinMs + Int64(knobs.below(120))
        if sw.enabled.contains(.messageFaults) {
            o.dropPpm = UInt32(knobs.below(60_000))
            o.duplicatePpm = UInt32(knobs.below(100_000))
            o.delayPpm = UInt32(knobs.below(100_000))
        }
        if sw.enabled.contains(.clockSkew) {
            o.clockSkewMs = (0..<o.clients).map { _ in Int64(knobs.int(in: -5_000...5_000)) }
        }
        var st = SimRandom(seed: seed).fork(.custom(Stress.streamLabel))
        let stress = config.swarm && config.stress ? Stress.draw(&st, actions: config.actions) : Stress()
        if let cap = stress.queueCap { o.queueCap = cap }
        var b = Builder(options: o, roles: Roles(config.schema, rich: config.richQueries || config.schema.linkCount > 1))
        b.seedData(&r)
        let kinds = sw.enabled
        let total = kinds.reduce(0) { $0 + sw.weights[$1]! }
        var burstDone = stress.offlineBurst == nil
        var faults = stress.protocolFaults[...]
        while b.actions.count < stress.actions(config.actions) {
            if let f = faults.first, b.actions.count >= f.afterActions {
                b.add(.crash(ClientID(f.client % b.clients), f.point))
                faults.removeFirst()
                continue
            }
            if !burstDone, let burst = stress.offlineBurst, b.actions.count >= burst.afterActions {
                b.offlineBurst(burst, &st)
                burstDone = true
                continue
            }
            b.now += Int64(r.below(400))
            var pick = Int(r.below(UInt64(total)))
            var kind = kinds[0]
            for k in kinds { pick -= sw.weights[k]!; if pick < 0 { kind = k; break } }
            b.emit(kind, &r)
        }
        b.closeWindows()
        if config.syncNow { b.addSyncNow(seed: seed) }
        if config.bulk { b.addBulk(seed: seed) }
        if config.userChoices { b.addUserChoices(seed: seed) }
        if config.tenants > 1 { b.addTenants(seed: seed, tenants: min(config.tenants, ScheduleLimits.maxTenant + 1)) }
        return Schedule(schema: config.schema, options: b.options, initial: b.initial, actions: b.actions)
    }

    /// Accumulates actions while tracking what exists, so every reference is valid.
    struct Builder {
        /// Merges actions drawn after the rest (from a feature's own stream, so every other
        /// action of a seed stays where it was) into the schedule: in time order, each after the
        /// actions already at its time.
        mutating func mergeDrawn(_ drawn: [TimedAction]) {
            var adds = drawn
            adds.sort { $0.at < $1.at }
            var merged: [TimedAction] = []
            merged.reserveCapacity(actions.count + adds.count)
            var k = 0
            for a in actions {
                while k < adds.count && adds[k].at < a.at { merged.append(adds[k]); k += 1 }
                merged.append(a)
            }
            merged.append(contentsOf: adds[k...])
            actions = merged
        }

        /// One to three "sync now" taps at times within the schedule, on clients drawn from the
        /// seed's own `syncNow` stream, merged after the actions already at the same time.
        mutating func addSyncNow(seed: UInt64) {
            var s = SimRandom(seed: seed).fork(.custom(0x7379_6e63))
            let end = actions.last?.at ?? 0
            var taps: [TimedAction] = []
            for _ in 0..<(1 + Int(s.below(3))) {
                taps.append(TimedAction(at: Int64(s.below(UInt64(end + 1))), .syncNow(ClientID(Int(s.below(UInt64(clients)))))))
            }
            mergeDrawn(taps)
        }

        /// One or two bulk creates at times within the schedule (see `Config.bulk`), and small
        /// push batches and pull pages, from the seed's own `bulk` stream; merged after the
        /// actions already at the same time.
        mutating func addBulk(seed: UInt64) {
            var s = SimRandom(seed: seed).fork(.custom(0x62_756c_6b))
            options.strategy.pushBatchSize = 1 + Int(s.below(8))
            options.strategy.pullPageSize = 1 + Int(s.below(8))
            let end = actions.last?.at ?? 0
            var adds: [TimedAction] = []
            for _ in 0..<(1 + Int(s.below(2))) {
                let count = 2 + Int(s.below(23))
                let first = EntityID(nextEntity)
                nextEntity += UInt32(count)
                let ns = roles.primary
                var vals: [FieldAssignment] = []
                if let f = schema.fields(of: ns).first(where: { schema.kind(of: $0) == .string }) { vals.append(FieldAssignment(f, .string("bulk\(first.raw)"))) }
                adds.append(TimedAction(at: Int64(s.below(UInt64(end + 1))),
                                        .bulkCreate(ClientID(Int(s.below(UInt64(clients)))), firstEntity: first, count: count, ns, vals)))
            }
            mergeDrawn(adds)
        }

        var options: SimulationOptions
        var now: Int64 = 0
        var initial: [InitialEntity] = []
        var actions: [TimedAction] = []
        /// Every entity the schedule made so far, in the order made (only ever appended, through
        /// `remember`).
        private(set) var entities: [(EntityID, NamespaceID)] = []
        /// `entities` of each namespace (indexed by its raw id), in the same order: a pick in one
        /// namespace draws from its list, where it filtered every entity made so far (a long
        /// schedule's generation was quadratic in its length). The same index is drawn from
        /// the same list, so schedules are unchanged.
        private var entitiesIn: [[EntityID]] = []
        var nextEntity: UInt32 = 1
        var nextSub: UInt32 = 1
        var subs: [(ClientID, SubscriptionID)] = []
        var offlineUntil: [Int64]
        var unreachableUntil: [Int64]
        var counter = 0
        let roles: Roles
        var schema: Schema { roles.schema }

        init(options: SimulationOptions, roles: Roles) {
            self.options = options
            self.roles = roles
            offlineUntil = Array(repeating: -1, count: options.clients)
            unreachableUntil = Array(repeating: -1, count: options.clients)
        }

        var clients: Int { options.clients }

        mutating func add(_ a: Action, at t: Int64? = nil) { actions.append(TimedAction(at: t ?? now, a)) }

        mutating func newID() -> EntityID { defer { nextEntity += 1 }; return EntityID(nextEntity) }

        mutating func word(_ r: inout SimRandom) -> String {
            counter += 1
            let words = ["milk", "eggs", "plan", "ship", "call", "read", "fix", "note", "idea", "draft"]
            return words[r.index(words.count)] + String(counter)
        }

        mutating func value(_ f: FieldID, _ r: inout SimRandom) -> FieldValue {
            switch schema.kind(of: f) {
            case .string: return .string(word(&r))
            case .int: return .int(Int(r.below(100)))
            case .bool: return .bool(r.below(2) == 0)
            }
        }

        /// A new entity's values: strings drawn, other fields at their declared initial value.
        mutating func initialValues(_ ns: NamespaceID, _ r: inout SimRandom) -> [FieldAssignment] {
            schema.fields(of: ns).map { f in
                if schema.kind(of: f) == .string { return FieldAssignment(f, value(f, &r)) }
                if let v = schema.initialValue(of: f) { return FieldAssignment(f, v) }
                return FieldAssignment(f, schema.kind(of: f) == .int ? .int(0) : .bool(false))
            }
        }

        /// Initial server data: profiles, some with posts and some without (so views through
        /// `posts with author` are partial), and todos. Then each client subscribes. (In the
        /// configured schema's roles: parents, children linked to parents, plain namespaces.)
        mutating func seedData(_ r: inout SimRandom) {
            var made: [NamespaceID: [EntityID]] = [:]
            for p in roles.parents {
                let count = 2 + Int(r.below(2))
                for _ in 0..<count {
                    let id = newID()
                    made[p, default: []].append(id)
                    initial.append(InitialEntity(entity: id, namespace: p, values: initialValues(p, &r)))
                    remember(id, p)
                }
            }
            for c in roles.children {
                for i in 0..<(1 + Int(r.below(2))) {
                    let id = newID()
                    let vals = initialValues(c, &r)
                    var links: [LinkAssignment] = []
                    for l in schema.links(of: c) {
                        let pool = made[schema.target(of: l)] ?? []
                        if !pool.isEmpty { links.append(LinkAssignment(l, pool[i % max(1, pool.count - 1)])) }
                    }
                    initial.append(InitialEntity(entity: id, namespace: c, values: vals, links: links))
                    remember(id, c)
                }
            }
            for n in roles.plain {
                for _ in 0..<(2 + Int(r.below(3))) {
                    let id = newID()
                    initial.append(InitialEntity(entity: id, namespace: n, values: initialValues(n, &r)))
                    remember(id, n)
                }
            }
            let menu = roles.initialMenu
            for c in 0..<clients {
                let n = min(2 + Int(r.below(2)), menu.count)
                var picked: [Int] = []
                // Every client sees the primary namespace; the rest is drawn.
                picked.append(0)
                while picked.count < n {
                    let q = 1 + r.index(menu.count - 1)
                    if !picked.contains(q) { picked.append(q) }
                }
                for q in picked { subscribe(ClientID(c), menu[q]) }
            }
        }

        mutating func subscribe(_ c: ClientID, _ q: Query) {
            let s = SubscriptionID(nextSub)
            nextSub += 1
            subs.append((c, s))
            add(.subscribe(c, s, q))
        }

        /// Notes a new entity (the only way into `entities`).
        mutating func remember(_ id: EntityID, _ ns: NamespaceID) {
            entities.append((id, ns))
            let k = Int(ns.raw)
            if k >= entitiesIn.count { entitiesIn.append(contentsOf: repeatElement([], count: k + 1 - entitiesIn.count)) }
            entitiesIn[k].append(id)
        }

        /// An entity made so far, drawn uniformly (from namespace `ns` only, if given).
        mutating func pickEntity(_ r: inout SimRandom, _ ns: NamespaceID? = nil) -> (EntityID, NamespaceID)? {
            guard let ns else { return entities.isEmpty ? nil : entities[r.index(entities.count)] }
            let k = Int(ns.raw)
            guard k < entitiesIn.count, !entitiesIn[k].isEmpty else { return nil }
            return (entitiesIn[k][r.index(entitiesIn[k].count)], ns)
        }

        mutating func client(_ r: inout SimRandom) -> ClientID { ClientID(r.index(clients)) }

        /// A patch of one field (or, one time in four, of several).
        mutating func update(_ c: ClientID, _ e: EntityID, _ ns: NamespaceID, _ r: inout SimRandom, field: FieldID? = nil) {
            let fields = schema.fields(of: ns)
            if fields.isEmpty { return }
            if field == nil && r.below(4) == 0 && fields.count > 1 {
                let fs = fields.filter { _ in r.below(2) == 0 }
                if fs.count > 1 { add(.update(c, e, fs.map { FieldAssignment($0, value($0, &r)) })); return }
            }
            let f = field ?? fields[r.index(fields.count)]
            add(.update(c, e, [FieldAssignment(f, value(f, &r))]))
        }

        mutating func emit(_ kind: Kind, _ r: inout SimRandom) {
            switch kind {
            case .create:
                let ns = roles.all[r.index(roles.all.count)]
                let id = newID()
                let c = client(&r)
                add(.create(c, id, ns, schema.fields(of: ns).map { FieldAssignment($0, value($0, &r)) }))
                remember(id, ns)
                for l in schema.links(of: ns) {
                    if let (p, _) = pickEntity(&r, schema.target(of: l)) { now += 1; add(.link(c, id, l, p)) }
                }
            case .update:
                guard let (e, ns) = pickEntity(&r) else { return }
                update(client(&r), e, ns, &r)
            case .concurrentEdit:
                // Two clients edit one entity within one offline window: same field or disjoint fields.
                guard let (e, ns) = pickEntity(&r, r.below(2) == 0 ? roles.primary : nil), clients >= 2 else { return }
                let fields = schema.fields(of: ns)
                guard !fields.isEmpty else { return }
                let a = client(&r)
                var b = client(&r)
                if b == a { b = ClientID((a.index + 1) % clients) }
                let same = r.below(2) == 0 || fields.count < 2
                let f1 = fields[r.index(fields.count)]
                var f2 = f1
                if !same { f2 = fields[(fields.firstIndex(of: f1)! + 1 + r.index(fields.count - 1)) % fields.count] }
                goOffline(a, for: 500 + Int64(r.below(3_000)))
                now += 1 + Int64(r.below(50))
                update(a, e, ns, &r, field: f1)
                now += 1 + Int64(r.below(200))
                if r.below(3) == 0 { add(.serverUpdate(e, [FieldAssignment(f2, value(f2, &r))])) } else { update(b, e, ns, &r, field: f2) }
            case .typing:
                guard let main = roles.typingMain else { return }
                guard let (e, ns) = pickEntity(&r, r.below(3) == 0 ? roles.typingAlt ?? main : main),
                      let f = schema.fields(of: ns).first(where: { schema.kind(of: $0) == .string }) else { return }
                let texts = ["Testing", "Hello", "Groceries", "Ship it", "Done!"]
                let c = client(&r)
                if r.below(2) == 0 { goOffline(c, for: 300 + Int64(r.below(2_000))); now += 1 }
                add(.type(c, e, f, texts[r.index(texts.count)], everyMs: 10 + Int64(r.below(60))))
                now += 400
            case .delete:
                guard r.below(2) == 0, let (e, ns) = pickEntity(&r) else { return }
                let c = client(&r)
                // Often, a delete races an edit of the same entity from another client.
                if r.below(2) == 0 && clients >= 2 {
                    let other = ClientID((c.index + 1) % clients)
                    goOffline(other, for: 300 + Int64(r.below(1_500)))
                    now += 1
                    update(other, e, ns, &r)
                    now += 1 + Int64(r.below(100))
                }
                add(.delete(c, e))
            case .link:
                guard schema.linkCount > 0 else { return }
                let l = schema.linkCount == 1 ? LinkID(0) : LinkID(UInt8(r.index(schema.linkCount)))
                guard let (p, _) = pickEntity(&r, schema.source(of: l)), let (a, _) = pickEntity(&r, schema.target(of: l)) else { return }
                add(r.below(4) == 0 ? .unlink(client(&r), p, l, a) : .link(client(&r), p, l, a))
            case .serverWrite:
                guard let (e, ns) = pickEntity(&r) else { return }
                if r.below(5) == 0 {
                    // The back office creates an entity clients have never seen.
                    let ns2 = roles.all[r.index(roles.all.count)]
                    let id = newID()
                    add(.serverCreate(id, ns2, schema.fields(of: ns2).map { FieldAssignment($0, value($0, &r)) }))
                    remember(id, ns2)
                } else if r.below(6) == 0 {
                    add(.serverDelete(e))
                } else {
                    let fields = schema.fields(of: ns)
                    guard !fields.isEmpty else { return }
                    let f = fields[r.index(fields.count)]
                    add(.serverUpdate(e, [FieldAssignment(f, value(f, &r))]))
                }
            case .subscribe:
                let menu = roles.laterMenu
                let c = client(&r)
                if r.below(3) == 0, let (cc, s) = subs.filter({ $0.0 == c }).last {
                    subs.removeAll { $0.1 == s }
                    add(.unsubscribe(cc, s))
                } else {
                    subscribe(c, menu[r.index(menu.count)])
                }
            case .queryOnce:
                add(.queryOnce(client(&r), Query(roles.primary)))
            case .offlineWindow:
                goOffline(client(&r), for: 200 + Int64(r.below(5_000)))
            case .unreachableWindow:
                let c = client(&r)
                guard unreachableUntil[c.index] < now else { return }
                let until = now + 500 + Int64(r.below(4_000))
                unreachableUntil[c.index] = until
                add(.serverUnreachable(c))
                pendingCloses.append(TimedAction(at: until, .serverReachable(c)))
            case .partition:
                // Several clients lose the server at once, then heal together.
                let until = now + 500 + Int64(r.below(4_000))
                for i in 0..<clients where r.below(2) == 0 && unreachableUntil[i] < now {
                    unreachableUntil[i] = until
                    add(.serverUnreachable(ClientID(i)))
                    pendingCloses.append(TimedAction(at: until, .serverReachable(ClientID(i))))
                }
            case .restart:
                add(.restart(client(&r)))
            case .forceSync:
                add(.forceSync(client(&r), r.below(2) == 0 ? .keepLocal : .keepServer))
            case .messageFaults, .clockSkew:
                // Options, drawn with the swarm; nothing to emit.
                if let (e, ns) = pickEntity(&r) { update(client(&r), e, ns, &r) }
            }
            flushCloses()
        }

        var pendingCloses: [TimedAction] = []

        /// One client goes offline for a long window and keeps writing: updates of what it can
        /// see and, one time in five, creates. Draws from the stress stream only.
        mutating func offlineBurst(_ burst: Stress.OfflineBurst, _ r: inout SimRandom) {
            let c = ClientID(r.index(clients))
            guard offlineUntil[c.index] < now else { return }
            now += 1
            let start = now
            goOffline(c, for: burst.windowMs)
            let spacing = max(1, (burst.windowMs - 1) / Int64(burst.writes + 1))
            for i in 0..<burst.writes {
                now = start + 1 + Int64(i) * spacing
                if r.below(5) == 0 {
                    let ns = roles.all[r.index(roles.all.count)]
                    let id = newID()
                    add(.create(c, id, ns, schema.fields(of: ns).map { FieldAssignment($0, value($0, &r)) }))
                    remember(id, ns)
                } else if let (e, ns) = pickEntity(&r) {
                    update(c, e, ns, &r)
                }
            }
            now = start + burst.windowMs
            flushCloses()
        }

        mutating func goOffline(_ c: ClientID, for ms: Int64) {
            guard offlineUntil[c.index] < now else { return }
            offlineUntil[c.index] = now + ms
            add(.goOffline(c))
            pendingCloses.append(TimedAction(at: now + ms, .goOnline(c)))
        }

        /// Emits the window ends that are due, keeping actions in time order.
        mutating func flushCloses() {
            pendingCloses.sort { $0.at < $1.at }
            while let first = pendingCloses.first, first.at <= now {
                actions.append(TimedAction(at: max(first.at, actions.last?.at ?? 0), first.action))
                pendingCloses.removeFirst()
            }
        }

        mutating func closeWindows() {
            pendingCloses.sort { $0.at < $1.at }
            for a in pendingCloses { actions.append(TimedAction(at: max(a.at, actions.last?.at ?? 0), a.action)) }
            pendingCloses.removeAll()
        }
    }
}

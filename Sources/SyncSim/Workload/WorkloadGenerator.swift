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
/// writer, restarts and reconnects.
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
        public init(clients: Int? = nil, actions: Int = 60, swarm: Bool = true) {
            self.clients = clients
            self.actions = actions
            self.swarm = swarm
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
        o.conflictPolicy = ConflictPolicy.allCases[knobs.index(ConflictPolicy.allCases.count)]
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
        var b = Builder(options: o)
        b.seedData(&r)
        let kinds = sw.enabled
        let total = kinds.reduce(0) { $0 + sw.weights[$1]! }
        while b.actions.count < config.actions {
            b.now += Int64(r.below(400))
            var pick = Int(r.below(UInt64(total)))
            var kind = kinds[0]
            for k in kinds { pick -= sw.weights[k]!; if pick < 0 { kind = k; break } }
            b.emit(kind, &r)
        }
        b.closeWindows()
        return Schedule(options: b.options, initial: b.initial, actions: b.actions)
    }

    /// Accumulates actions while tracking what exists, so every reference is valid.
    struct Builder {
        var options: SimulationOptions
        var now: Int64 = 0
        var initial: [InitialEntity] = []
        var actions: [TimedAction] = []
        var entities: [(EntityID, NamespaceID)] = []
        var nextEntity: UInt32 = 1
        var nextSub: UInt32 = 1
        var subs: [(ClientID, SubscriptionID)] = []
        var offlineUntil: [Int64]
        var unreachableUntil: [Int64]
        var counter = 0

        init(options: SimulationOptions) {
            self.options = options
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
            switch f.kind {
            case .string: return .string(word(&r))
            case .int: return .int(Int(r.below(100)))
            case .bool: return .bool(r.below(2) == 0)
            }
        }

        /// Initial server data: profiles, some with posts and some without (so views through
        /// `posts with author` are partial), and todos. Then each client subscribes.
        mutating func seedData(_ r: inout SimRandom) {
            let profiles = 2 + Int(r.below(2))
            var pids: [EntityID] = []
            for _ in 0..<profiles {
                let id = newID()
                pids.append(id)
                initial.append(InitialEntity(entity: id, namespace: .profiles,
                                             values: [FieldAssignment(.name, value(.name, &r)), FieldAssignment(.bio, value(.bio, &r))]))
                entities.append((id, .profiles))
            }
            for i in 0..<(1 + Int(r.below(2))) {
                let id = newID()
                initial.append(InitialEntity(entity: id, namespace: .posts,
                                             values: [FieldAssignment(.content, value(.content, &r)), FieldAssignment(.likes, .int(0))],
                                             links: [LinkAssignment(.author, pids[i % max(1, profiles - 1)])]))
                entities.append((id, .posts))
            }
            for _ in 0..<(2 + Int(r.below(3))) {
                let id = newID()
                initial.append(InitialEntity(entity: id, namespace: .todos,
                                             values: [FieldAssignment(.title, value(.title, &r)), FieldAssignment(.done, .bool(false)),
                                                      FieldAssignment(.priority, .int(1))]))
                entities.append((id, .todos))
            }
            let menu: [Query] = [
                Query(.todos), Query(.profiles), Query(.posts, include: .forward(.author)),
                Query(.profiles, include: .reverse(.author)), Query(.todos, where: FieldAssignment(.done, .bool(false))),
            ]
            for c in 0..<clients {
                let n = 2 + Int(r.below(2))
                var picked: [Int] = []
                // Every client sees todos; the rest is drawn.
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

        mutating func pickEntity(_ r: inout SimRandom, _ ns: NamespaceID? = nil) -> (EntityID, NamespaceID)? {
            let pool = ns.map { n in entities.filter { $0.1 == n } } ?? entities
            return pool.isEmpty ? nil : pool[r.index(pool.count)]
        }

        mutating func client(_ r: inout SimRandom) -> ClientID { ClientID(r.index(clients)) }

        /// A patch of one field (or, one time in four, of several).
        mutating func update(_ c: ClientID, _ e: EntityID, _ ns: NamespaceID, _ r: inout SimRandom, field: FieldID? = nil) {
            if field == nil && r.below(4) == 0 && ns.fields.count > 1 {
                let fs = ns.fields.filter { _ in r.below(2) == 0 }
                if fs.count > 1 { add(.update(c, e, fs.map { FieldAssignment($0, value($0, &r)) })); return }
            }
            let f = field ?? ns.fields[r.index(ns.fields.count)]
            add(.update(c, e, [FieldAssignment(f, value(f, &r))]))
        }

        mutating func emit(_ kind: Kind, _ r: inout SimRandom) {
            switch kind {
            case .create:
                let ns = NamespaceID.all[r.index(3)]
                let id = newID()
                let c = client(&r)
                add(.create(c, id, ns, ns.fields.map { FieldAssignment($0, value($0, &r)) }))
                entities.append((id, ns))
                if ns == .posts, let (p, _) = pickEntity(&r, .profiles) { now += 1; add(.link(c, id, .author, p)) }
            case .update:
                guard let (e, ns) = pickEntity(&r) else { return }
                update(client(&r), e, ns, &r)
            case .concurrentEdit:
                // Two clients edit one entity within one offline window: same field or disjoint fields.
                guard let (e, ns) = pickEntity(&r, r.below(2) == 0 ? .todos : nil), clients >= 2 else { return }
                let a = client(&r)
                var b = client(&r)
                if b == a { b = ClientID((a.index + 1) % clients) }
                let same = r.below(2) == 0 || ns.fields.count < 2
                let f1 = ns.fields[r.index(ns.fields.count)]
                var f2 = f1
                if !same { f2 = ns.fields[(ns.fields.firstIndex(of: f1)! + 1 + r.index(ns.fields.count - 1)) % ns.fields.count] }
                goOffline(a, for: 500 + Int64(r.below(3_000)))
                now += 1 + Int64(r.below(50))
                update(a, e, ns, &r, field: f1)
                now += 1 + Int64(r.below(200))
                if r.below(3) == 0 { add(.serverUpdate(e, [FieldAssignment(f2, value(f2, &r))])) } else { update(b, e, ns, &r, field: f2) }
            case .typing:
                guard let (e, ns) = pickEntity(&r, r.below(3) == 0 ? .posts : .todos) else { return }
                let f = ns.fields.first { $0.kind == .string }!
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
                guard let (p, _) = pickEntity(&r, .posts), let (a, _) = pickEntity(&r, .profiles) else { return }
                add(r.below(4) == 0 ? .unlink(client(&r), p, .author, a) : .link(client(&r), p, .author, a))
            case .serverWrite:
                guard let (e, ns) = pickEntity(&r) else { return }
                if r.below(5) == 0 {
                    // The back office creates an entity clients have never seen.
                    let ns2 = NamespaceID.all[r.index(3)]
                    let id = newID()
                    add(.serverCreate(id, ns2, ns2.fields.map { FieldAssignment($0, value($0, &r)) }))
                    entities.append((id, ns2))
                } else if r.below(6) == 0 {
                    add(.serverDelete(e))
                } else {
                    let f = ns.fields[r.index(ns.fields.count)]
                    add(.serverUpdate(e, [FieldAssignment(f, value(f, &r))]))
                }
            case .subscribe:
                let menu: [Query] = [Query(.profiles), Query(.posts, include: .forward(.author)), Query(.profiles, include: .reverse(.author))]
                let c = client(&r)
                if r.below(3) == 0, let (cc, s) = subs.filter({ $0.0 == c }).last {
                    subs.removeAll { $0.1 == s }
                    add(.unsubscribe(cc, s))
                } else {
                    subscribe(c, menu[r.index(menu.count)])
                }
            case .queryOnce:
                add(.queryOnce(client(&r), Query(.todos)))
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

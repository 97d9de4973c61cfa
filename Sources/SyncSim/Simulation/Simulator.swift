/// The deterministic simulator: the only thing that moves messages, time and storage.
///
/// One run is a pure function of (strategy, schedule, seed): events are ordered by (virtual time,
/// insertion sequence); every random choice comes from a stream forked off the seed; no wall
/// clock, no threads, no I/O. Generic over the strategy, so the hot loop calls concrete machines.
///
/// Phases (TigerBeetle's VOPR): a *fault phase* runs the schedule; at `healTime` the *heal phase*
/// brings every client online and reachable and turns faults off; the run then must *settle*
/// (no message in flight, no pending write, every subscription equal to the server's answer)
/// within `settleLimitMs` and `maxEvents`, or it is a liveness failure — never a hang.
///
/// Why `@inlinable` (with `@usableFromInline` on its state and on what it touches): a generic's
/// body is only specialised where it is visible. Without it, a strategy declared in another module
/// (a user's) ran the unspecialised generic code, with value-witness and metadata look-ups per
/// event, about twice as slow as a built-in; with it, `Simulator.run(MyStrategy(), …)` in the
/// user's module compiles a simulator specialised for `MyStrategy`, as the built-ins get in
/// `simulate(_:_:seed:)`. Keep new methods `@inlinable` (the compiler names what they reach that
/// is not `@usableFromInline`); rare once-per-run work may stay out of line (`makeResult`).
public struct Simulator<S: SyncStrategy> {
    public typealias Up = S.Client.Up
    public typealias Down = S.Client.Down

    @usableFromInline enum Event {
        case step(Int)
        /// Messages in flight wait in `upInFlight`/`downInFlight`; the event holds their slot, so
        /// events stay plain values (no reference counting while the queue sifts them).
        case up(ClientID, slot: Int32, epoch: UInt32, msg: UInt32)
        case down(ClientID, slot: Int32, epoch: UInt32, msg: UInt32)
        case serverSeesConnect(ClientID, epoch: UInt32)
        case connectResult(ClientID, epoch: UInt32, ok: Bool)
        case noticeDisconnect(ClientID, incarnation: Int)
        case clientTimer(ClientID, TimerID, gen: UInt32, incarnation: Int)
        case serverTimer(TimerID, gen: UInt32)
        case resolve(ClientID, ConflictID, ConflictChoice, incarnation: Int)
        case heal
        case settleCheck
    }

    public let strategy: S
    public let schedule: Schedule
    public let seed: UInt64
    @usableFromInline let compiled: CompiledSchedule
    public let options: SimulationOptions
    @usableFromInline let transport: Transport

    @usableFromInline var now: Int64 = 0
    /// The events the run schedules as it goes (messages, timers, checks). The schedule's own
    /// steps are not in it: see `scheduleSteps`.
    @usableFromInline var queue = EventQueue<Event>()
    /// The schedule's steps in the order they run (`ScheduleSteps`), merged with `queue` as the
    /// run goes (`nextEvent`).
    @usableFromInline var scheduleSteps = ScheduleSteps()
    @usableFromInline var upInFlight = SlotTable<Up>()
    @usableFromInline var downInFlight = SlotTable<Down>()
    @usableFromInline var clients: [S.Client] = []
    @usableFromInline var durable: [S.Client.Durable?]
    @usableFromInline var incarnation: [Int]
    @usableFromInline var server: S.Server
    @usableFromInline var links: [LinkState]
    @usableFromInline var serverKnowsConnected: [Bool]
    @usableFromInline var disconnectNoticePending: [Bool]
    @usableFromInline var net: NetworkModel
    @usableFromInline var clientTimerGen: [TimerGenerations]
    /// Each client's pending-queue size as the story last showed it (queue lines).
    @usableFromInline var storyPending: [Int] = []
    @usableFromInline var serverTimerGen = TimerGenerations()
    @usableFromInline var nextTimerGen: UInt32 = 0
    /// Story only (filled when lines are kept): each timer setting's duration, by generation, so
    /// a firing reads "fires (a 1500 ms timer)" rather than just a strategy's opaque timer id.
    @usableFromInline var timerDurations: [UInt32: Int64] = [:]
    @usableFromInline var cOut = ClientOutbox<Up>()
    @usableFromInline var sOut = ServerOutbox<Down>()
    /// Drained effect buffers kept for reuse (an outbox is swapped with one instead of copied).
    @usableFromInline var cSpare: [ClientEffect<Up>] = []
    @usableFromInline var sSpare: [ServerEffect<Down>] = []
    @usableFromInline var recorder: TraceRecorder
    @usableFromInline var nextMessage: UInt32 = 0
    @usableFromInline var inFlight = 0
    @usableFromInline var events = 0
    /// Storage for `history` (an internal setter of a public property cannot be `@usableFromInline`).
    @usableFromInline var _history = History()
    @inlinable public var history: History { _history }
    /// Storage of `monitor` (set once, at the start; optional only because it is made after the
    /// other stored properties).
    @usableFromInline var _monitor: Monitor?
    /// The oracles, changed in place through `_monitor` (never copied: no `get` in the hot path).
    @inlinable var monitor: Monitor {
        get { _monitor! }
        _modify { yield &_monitor! }
    }
    /// User invariants, in id order; judged once, after the built-in oracles (`makeResult`).
    @usableFromInline let customInvariants: [CustomInvariant]
    /// Record `History.observations`: only when a user invariant asks, so runs without one pay
    /// one branch per user event and nothing else.
    @usableFromInline let observe: Bool
    /// Active subscriptions per client (the app's open screens), in id order.
    @usableFromInline var activeSubs: [[(SubscriptionID, Query)]]
    /// Per client: how many times its machine was changed (an input handed to it, or a new
    /// machine made at a relaunch). Equal counts mean an unchanged machine: what it shows and
    /// holds queued is as it was (`ObservedSystem.steps(of:)`).
    @usableFromInline var clientSteps: [UInt64]
    /// Protocol-point faults armed by `crash` actions, per client; nil when none.
    @usableFromInline var armedCrash: [CrashPoint?]
    /// `duringApply`: the client whose current input is a received message it crashes applying.
    @usableFromInline var applyingBeforeCrash: ClientID?
    /// True while a user command is being handled: `afterSend` does not strike inside one (a
    /// crash in the middle of a tap is a write never acknowledged, not a protocol point).
    @usableFromInline var inUserCommand = false
    @usableFromInline var deliveredWrites: Set<WriteID> = []
    @usableFromInline var unresolvedConflicts = 0
    @usableFromInline var conflictPrompts = 0
    @usableFromInline var healed = false
    /// The client and subscription index found unsettled at the last settle check (`isSettledFromHint`).
    @usableFromInline var settleHint: (Int, Int)?
    @usableFromInline var finished = false
    @usableFromInline let root: SimRandom
    /// The outside stop condition (`RunStop.current` when created), asked every
    /// `RunStop.checkInterval` events.
    @usableFromInline let stop: RunStop?
    /// Writes the run as a history when set (`exportHistory(to:)`); nil, one branch per site.
    @usableFromInline var export: SimulationExport? = nil

    // Tenants (`Simulator+Tenants.swift`). All unused unless the schedule switches tenant or
    // logs out (`tenancyOn`): then `server` is the server of `activeServerTenant` and the others
    // wait in `parkedServers`.
    /// The schedule has tenant actions: route by tenant, judge isolation.
    @usableFromInline let tenancyOn: Bool
    /// Each client's tenant now; nil while logged out.
    @usableFromInline var tenantOf: [TenantID?] = []
    /// The tenant whose server is in `server` (and whose timers are in `serverTimerGen`).
    @usableFromInline var activeServerTenant = TenantID.initial
    /// The other tenants' servers, made when first needed, by tenant.
    @usableFromInline var parkedServers: [ParkedServer?] = []
    /// The tenant of each server timer setting, by generation.
    @usableFromInline var serverTimerTenant: [UInt32: TenantID] = [:]
    /// `.databasePerTenant`: each client's durable store per tenant, except the open one
    /// (which is `durable[c]`).
    @usableFromInline var tenantDurable: [[S.Client.Durable?]] = []

    /// - Parameter invariants: user invariants to judge the run by, besides the built-ins. They
    ///   never change the run itself (its events, trace hash, final states); they only add
    ///   violations. Throws `InvariantError.duplicateID` if two share an id.
    @inlinable
    public init(strategy: S, schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly,
                invariants: [CustomInvariant] = []) throws {
        customInvariants = try InvariantCatalog.validated(invariants)
        observe = invariants.contains { $0.needsObservations }
        self.strategy = strategy
        self.schedule = schedule
        self.seed = seed
        compiled = try schedule.compile()
        options = schedule.options
        transport = strategy.transport
        root = SimRandom(seed: seed)
        stop = RunStop.current
        let n = options.clients
        tenancyOn = compiled.usesTenants
        if tenancyOn {
            tenantOf = Array(repeating: .initial, count: n)
            parkedServers = Array(repeating: nil, count: ScheduleLimits.maxTenant + 1)
            tenantDurable = Array(repeating: Array(repeating: nil, count: ScheduleLimits.maxTenant + 1), count: n)
        }
        net = NetworkModel(options: options, random: root.fork(.network))
        durable = Array(repeating: nil, count: n)
        incarnation = Array(repeating: 0, count: n)
        links = Array(repeating: LinkState(), count: n)
        serverKnowsConnected = Array(repeating: false, count: n)
        disconnectNoticePending = Array(repeating: false, count: n)
        clientTimerGen = Array(repeating: TimerGenerations(), count: n)
        activeSubs = Array(repeating: [], count: n)
        clientSteps = Array(repeating: 0, count: n)
        armedCrash = Array(repeating: nil, count: n)
        recorder = TraceRecorder(mode: trace)
        var oracles = Monitor(clients: n, schema: schedule.schema)
        if tenancyOn { oracles.activateTenants(clients: n) }
        _monitor = oracles
        _history.setRecordsObservations(observe)
        storyPending = Array(repeating: 0, count: n)
        var serverContext = ServerContext(schema: schedule.schema, clientCount: n, random: root.fork(.server), options: options.strategy)
        serverContext.tracesNotes = recorder.keepsLines
        server = strategy.makeServer(serverContext)
        for i in 0..<n { clients.append(strategy.makeClient(clientContext(ClientID(i)), restoring: nil)) }
        Schema.$describing.withValue(schedule.schema) { seedInitialData() }
        monitor.noteInitialData(server.data)
        scheduleSteps = ScheduleSteps(compiled.entries)
        _history.setHealTime(schedule.lastActionTime + 1)
        queue.push(at: _history.healTime, .heal)
    }

    @inlinable
    func clientContext(_ c: ClientID) -> ClientContext {
        let inc = incarnation[c.index]
        let r = inc == 0 ? root.fork(.client(c.index)) : root.fork(.clientRestart(client: c.index, incarnation: inc))
        var context = ClientContext(id: c, schema: schedule.schema, clientCount: options.clients, persistence: options.persistence,
                                    queueCap: options.queueCap, random: r, incarnation: inc, options: options.strategy)
        context.tracesNotes = recorder.keepsLines
        return context
    }

    /// Initial server data goes in as admin writes at time 0, before anything else: the server
    /// machine stays the only owner of its state.
    @inlinable
    mutating func seedInitialData() {
        guard !schedule.initial.isEmpty else { return }
        var ops: [Op] = schedule.initial.map { .create($0.entity, $0.namespace, $0.values) }
        for e in schedule.initial { for l in e.links { ops.append(.link(e.entity, l.link, l.target)) } }
        let w = UserWrite(id: WriteID(UInt32.max), ops: ops)
        recorder.begin(0, 0xA0)
        w.stableHash(into: &recorder.hasher)
        if recorder.keepsLines {
            recorder.line(0, .admin, client: nil, label: "initial data", "server starts with: \(w.description)")
        }
        server.handle(.adminWrite(w), now: 0, out: &sOut)
        drainServer(initial: true)
    }

    // MARK: - Running

    /// Runs to the end and returns the result. A run always ends: settled, out of time, or out of
    /// events. Human-readable text (story lines, explanations) names things by the schedule's
    /// schema.
    @inlinable
    public mutating func run() -> RunResult {
        Schema.$describing.withValue(schedule.schema) { runToEnd() }
    }

    @inlinable
    mutating func runToEnd() -> RunResult {
        var interrupted = false
        while !finished, let (t, ev) = nextEvent() {
            now = t
            events += 1
            if events > options.maxEvents {
                let why = "the run did not settle within \(options.maxEvents) events"
                if let x = export { x.unsettled(why, at: now) }
                monitor.liveness(at: now, why)
                break
            }
            if events & RunStop.checkMask == 0, let stop, stop.shouldStop() {
                interrupted = true
                break
            }
            dispatch(ev)
        }
        // An interrupted run is unfinished: no end-of-run judgement (it did not settle because
        // it was stopped, not because the strategy failed).
        if !interrupted {
            if let x = export { x.end(self) }
            withMonitor { $0.finish($1) }
        }
        var result = makeResult()
        result.interrupted = interrupted
        return result
    }

    /// The next event: the next step of the schedule, unless an event of the queue comes
    /// earlier. At the same instant the step comes first, as it did when the steps were pushed
    /// into the queue ahead of every other event (ties there go by insertion order).
    @inlinable @inline(__always)
    mutating func nextEvent() -> (Int64, Event)? {
        if let (i, t) = scheduleSteps.peek() {
            if let q = queue.nextTime, q < t { return queue.pop() }
            scheduleSteps.advance()
            return (t, .step(i))
        }
        return queue.pop()
    }

    @inlinable @inline(__always)
    mutating func dispatch(_ ev: Event) {
        switch ev {
        case .step(let i): runStep(compiled.entries[i])
        case .up(let c, let slot, let epoch, let id): deliverUp(c, upInFlight.take(slot), epoch, id)
        case .down(let c, let slot, let epoch, let id): deliverDown(c, downInFlight.take(slot), epoch, id)
        case .serverSeesConnect(let c, let epoch):
            guard links[c.index].epoch == epoch, links[c.index].isUp else { return }
            if tenancyOn { guard let t = tenantOf[c.index] else { return }; enterTenantServer(t) }
            serverKnowsConnected[c.index] = true
            recorder.begin(now, 0x10); recorder.hasher.combine(c.index)
            server.handle(.clientConnected(c), now: now, out: &sOut)
            drainServer()
        case .connectResult(let c, let epoch, let ok):
            var link = links[c.index]
            guard link.epoch == epoch, case .connecting = link.connection else { return }
            let success = ok && link.isUp
            link.connection = success ? .open(epoch: epoch) : .none
            links[c.index] = link
            recorder.begin(now, 0x11); recorder.hasher.combine(c.index); recorder.hasher.combine(success)
            if recorder.keepsLines {
                recorder.line(now, .connect, client: c, label: success ? "connected" : "connect failed",
                              "\(c) " + (success ? "is connected" : "fails to connect"))
            }
            clientInput(c, success ? .connected : .disconnected)
        case .noticeDisconnect(let c, let inc):
            guard inc == incarnation[c.index], disconnectNoticePending[c.index] else { return }
            disconnectNoticePending[c.index] = false
            recorder.begin(now, 0x12); recorder.hasher.combine(c.index)
            if recorder.keepsLines {
                recorder.line(now, .connect, client: c, label: "disconnected", "\(c) notices its connection is gone")
            }
            clientInput(c, .disconnected)
        case .clientTimer(let c, let id, let gen, let inc):
            guard inc == incarnation[c.index], clientTimerGen[c.index][id] == gen else { return }
            clientTimerGen[c.index][id] = nil
            recorder.begin(now, 0x13); recorder.hasher.combine(c.index); recorder.hasher.combine(id.raw)
            if recorder.keepsLines { recorder.line(now, .timer, client: c, label: id.description, "\(c) \(id) fires\(timerSpan(gen))") }
            clientInput(c, .timerFired(id))
        case .serverTimer(let id, let gen):
            if tenancyOn, let t = serverTimerTenant.removeValue(forKey: gen) { enterTenantServer(t) }
            guard serverTimerGen[id] == gen else { return }
            serverTimerGen[id] = nil
            recorder.begin(now, 0x14); recorder.hasher.combine(id.raw)
            if recorder.keepsLines { recorder.line(now, .timer, client: nil, label: id.description, "server \(id) fires\(timerSpan(gen))") }
            server.handle(.timerFired(id), now: now, out: &sOut)
            drainServer()
        case .resolve(let c, let id, let choice, let inc):
            unresolvedConflicts -= 1
            guard inc == incarnation[c.index] else { return }
            userCommand(c, .resolveConflict(id, choice))
        case .heal: heal()
        case .settleCheck: settleCheck()
        }
    }

    @inlinable
    mutating func runStep(_ e: CompiledSchedule.Entry) {
        switch e.step {
        case .boot(let c):
            recorder.begin(now, 0x20); recorder.hasher.combine(c.index)
            if recorder.keepsLines { recorder.line(now, .network, client: c, label: "launch", "\(c) launches (online)") }
            clientInput(c, .network(links[c.index].device))
        case .user(let c, let cmd): userCommand(c, cmd)
        case .admin(let w):
            if tenancyOn { enterTenantServer(.initial) }
            _history.recordIntent(w, origin: .admin, time: now, clientTime: now, whileDisconnected: false)
            monitor.intent(w)
            if let x = export { x.adminWrite(w, at: now) }
            recorder.begin(now, 0x21); w.stableHash(into: &recorder.hasher)
            if recorder.keepsLines { recorder.line(now, .admin, client: nil, label: "admin write", "admin writes \(w) (\(w.id))") }
            server.handle(.adminWrite(w), now: now, out: &sOut)
            drainServer()
        case .offline(let c): setDevice(c, .offline)
        case .online(let c): setDevice(c, .online)
        case .unreachable(let c): setReachable(c, false)
        case .reachable(let c): setReachable(c, true)
        case .restart(let c): restart(c)
        case .crash(let c, let point): armCrash(c, point)
        case .bulk(let c, let ws): bulkCommand(c, ws)
        case .switchTenant(let c, let t): changeTenant(c, to: t)
        case .logout(let c): changeTenant(c, to: nil)
        }
    }

    /// " (a 1500 ms timer)" for the story; forgets the setting.
    @inlinable
    mutating func timerSpan(_ gen: UInt32) -> String {
        guard let ms = timerDurations.removeValue(forKey: gen) else { return "" }
        return " (a \(ms) ms timer)"
    }

    /// Arms a protocol-point fault; it strikes at the client's next such point.
    @inlinable
    mutating func armCrash(_ c: ClientID, _ point: CrashPoint) {
        armedCrash[c.index] = point
        recorder.begin(now, 0x65); recorder.hasher.combine(c.index); recorder.hasher.combine(point.rawValue)
        if recorder.keepsLines {
            let what: String
            switch point {
            case .afterSend: what = "\(c) will crash right after its next send outside a user command, before anything it does next"
            case .duringApply: what = "\(c) will crash while applying the next message it receives, at its first persist"
            case .commitUnknown: what = "the server will crash between applying \(c)'s next transaction and acknowledging it"
            }
            recorder.line(now, .network, client: c, label: "fault armed", "fault armed: " + what)
        }
    }

    /// The armed fault strikes now: the client's process is dead. The caller drops the rest of
    /// what it was doing, and `drainClient` relaunches it as soon as that step ends, before any
    /// other event (a dead process receives nothing: not even a message due at the same instant).
    @inlinable
    mutating func crashSoon(_ c: ClientID, _ why: String) {
        armedCrash[c.index] = nil
        recorder.begin(now, 0x66); recorder.hasher.combine(c.index)
        if recorder.keepsLines { recorder.line(now, .network, client: c, label: "crash", "\(c) crashes \(why)") }
    }

    @inlinable
    mutating func userCommand(_ c: ClientID, _ cmd: UserCommand) {
        if tenancyOn, tenantOf[c.index] == nil { skipLoggedOut(c, cmd); return }
        recorder.begin(now, 0x22); recorder.hasher.combine(c.index)
        switch cmd {
        case .write(let w):
            w.stableHash(into: &recorder.hasher)
            _history.recordIntent(w, origin: .client(c), time: now, clientTime: now + options.skew(of: c),
                                  whileDisconnected: !links[c.index].isUp)
        case .subscribe(let s, let q):
            recorder.hasher.combine(s.raw); q.stableHash(into: &recorder.hasher)
            activeSubs[c.index].append((s, q))
            activeSubs[c.index].sort { $0.0 < $1.0 }
        case .unsubscribe(let s):
            recorder.hasher.combine(s.raw)
            activeSubs[c.index].removeAll { $0.0 == s }
        case .queryOnce(let r, let q): recorder.hasher.combine(r.raw); q.stableHash(into: &recorder.hasher)
        case .resolveConflict(let id, let ch): recorder.hasher.combine(id.raw); recorder.hasher.combine(ch == .keepLocal)
        case .forceSync(let ch): recorder.hasher.combine(ch == .keepLocal)
        case .syncNow: recorder.hasher.byte(0x53)
        case .dropOldestWrite: recorder.hasher.byte(0xD0)
        case .switchTenant(let t): recorder.hasher.byte(0xE0); recorder.hasher.byte(t.raw)
        case .logout: recorder.hasher.byte(0xE1)
        }
        if recorder.keepsLines {
            var text = "\(c) \(cmd)"
            if case .write(let w) = cmd { text += " (\(w.id))" }
            recorder.line(now, .action, client: c, label: "user", text)
        }
        if let x = export { x.command(c, cmd, clientTime: now + options.skew(of: c), offline: !links[c.index].isUp, self) }
        withMonitor { $0.beforeCommand(c, cmd, $1) }
        inUserCommand = true
        clientInput(c, .user(cmd))
        inUserCommand = false
        if let x = export { x.done(c, self) }
        withMonitor { $0.afterCommand(c, cmd, $1) }
    }

    // MARK: - Clients

    @inlinable @inline(__always)
    mutating func clientInput(_ c: ClientID, _ input: ClientInput<Down>) {
        clientSteps[c.index] &+= 1
        clients[c.index].handle(input, now: now + options.skew(of: c), out: &cOut)
        drainClient(c)
    }

    @inlinable
    mutating func drainClient(_ c: ClientID) {
        if cOut.isEmpty {
            if recorder.keepsLines { storyQueue(c, withClient(c) { $0.pendingWriteCount }) }
            return
        }
        var effects = cSpare
        cSpare = []
        cOut.swapEffects(&effects)
        defer { effects.removeAll(keepingCapacity: true); cSpare = effects }
        // A protocol-point crash struck: the process is dead, the rest of this step never happens.
        var dead = false
        // Each effect is moved out of the buffer (a plain case left in its place), not copied:
        // a `for e in effects` retained every payload, and the buffer's clean-up released it again.
        for k in effects.indices {
            if dead { continue }
            var e = ClientEffect<Up>.connect
            swap(&e, &effects[k])
            switch e {
            case .send(let m):
                sendUp(c, m)
                if armedCrash[c.index] == .afterSend && !inUserCommand {
                    dead = true
                    crashSoon(c, "right after sending, before anything it did next")
                }
            case .connect: connect(c)
            case .disconnect: closeConnection(c, notifyClient: false, reason: "client closed it")
            case .setTimer(let id, let after):
                // Generations come from one run-wide counter, so a timer cancelled and set again
                // can never be confused with a stale firing of its earlier setting.
                nextTimerGen &+= 1
                let gen = nextTimerGen
                clientTimerGen[c.index][id] = gen
                if recorder.keepsLines { timerDurations[gen] = max(0, after) }
                queue.push(at: now + max(0, after), .clientTimer(c, id, gen: gen, incarnation: incarnation[c.index]))
            case .cancelTimer(let id):
                if recorder.keepsLines, let g = clientTimerGen[c.index][id] { timerDurations[g] = nil }
                clientTimerGen[c.index][id] = nil
            case .persist:
                if applyingBeforeCrash == c {
                    // The armed crash strikes at this persist: it never reaches the disk.
                    applyingBeforeCrash = nil
                    dead = true
                    crashSoon(c, "while applying a received message, before persisting it")
                    continue
                }
                durable[c.index] = withClient(c) { $0.durableState }
            case .event(let ev):
                recordEvent(c, ev)
            case .note(let text):
                if recorder.keepsLines { recorder.line(now, .event, client: c, label: "note", "\(c) notes: \(text)") }
            }
        }
        let pending = withClient(c) { $0.pendingWriteCount }
        if recorder.keepsLines { storyQueue(c, pending) }
        _history.notePendingWrites(pending)
        if let x = export { x.pending(c, count: pending, self) }
        monitor.pending(c, count: pending, at: now)
        // Relaunch here, not through the event queue: nothing may reach the dead process first.
        // (Re-entering through `restart` is safe: this step's buffer is no longer read.)
        if dead { restart(c) }
    }

    /// A queue change as a story line (story only: never hashed; only when the run keeps lines).
    @inlinable
    mutating func storyQueue(_ c: ClientID, _ pending: Int) {
        guard pending != storyPending[c.index] else { return }
        recorder.line(now, .event, client: c, label: "queue", "\(c)'s queue: \(pending) pending (was \(storyPending[c.index]))")
        storyPending[c.index] = pending
    }

    /// Reads a client machine in place, through an exclusive access. A plain read of
    /// `clients[i].x` copies the whole machine (a retain per field, and the releases) before
    /// calling a getter the optimiser cannot see into: one declared in another module than the
    /// code this simulator is specialised in. Only reads; `body` must not change the machine.
    @inlinable @inline(__always)
    mutating func withClient<R>(_ c: ClientID, _ body: (inout S.Client) -> R) -> R { body(&clients[c.index]) }

    @inlinable
    mutating func recordEvent(_ c: ClientID, _ ev: UserEvent) {
        recorder.begin(now, 0x30); recorder.hasher.combine(c.index)
        ev.hashDescription(into: &recorder.hasher)
        _history.recordTold(ev, to: c, at: now)
        if recorder.keepsLines {
            if case .subscriptionYielded = ev {} else {
                recorder.line(now, .event, client: c, label: "told", "\(c) \(ev)")
            }
        }
        if case .conflictRaised(let id, _) = ev {
            let choice = options.conflictPolicy.choice(forPrompt: conflictPrompts)
            conflictPrompts += 1
            unresolvedConflicts += 1
            queue.push(at: now + max(0, options.conflictThinkMs), .resolve(c, id, choice, incarnation: incarnation[c.index]))
        }
        if observe, case .subscriptionYielded(let s, let fromCache) = ev {
            _history.recordObservation(time: now, client: c, subscription: s,
                                       query: subscriptionIndex(c, s).map { activeSubs[c.index][$0].1 },
                                       fromCache: fromCache, result: clients[c.index].result(of: s))
        }
        var yieldQuery: Query?
        if case .subscriptionYielded(let s, false) = ev, let k = subscriptionIndex(c, s) { yieldQuery = activeSubs[c.index][k].1 }
        let connected = links[c.index].isOpen || (transport == .datagram && links[c.index].isUp)
        if let x = export { x.told(c, ev, connected: connected, self) }
        monitor.told(c, ev, connected: connected, query: yieldQuery)
        switch ev {
        case .subscriptionYielded, .writeRejected, .writeConfirmed: withMonitor { $0.observe(c, ev, $1) }
        default: break
        }
    }

    /// The place of subscription `s` among client `c`'s open ones, found reading the ids in
    /// place (`first(where:)` handed the closure a copy of each (id, query) pair it passed: a
    /// retain and a release of each query's storage, per yield).
    @inlinable
    func subscriptionIndex(_ c: ClientID, _ s: SubscriptionID) -> Int? {
        activeSubs[c.index].withUnsafeBufferPointer { b in
            for k in 0..<b.count where b[k].0 == s { return k }
            return nil
        }
    }

    @inlinable
    mutating func sendUp(_ c: ClientID, _ m: Up) {
        nextMessage &+= 1
        let id = nextMessage
        _history.countMessageSent()
        recorder.begin(now, 0x40); recorder.hasher.combine(c.index); m.stableHash(into: &recorder.hasher)
        if recorder.keepsLines {
            recorder.line(now, .send, client: c, message: id, upward: true, label: m.kind, "\(c) sends \(m)")
        }
        var link = links[c.index]
        let usable = transport == .stream ? link.isOpen : link.isUp
        guard usable else {
            if link.device == .offline {
                if let x = export { x.request(c, at: now) }
                monitor.requestWhileOffline(c, at: now)
            }
            lose(c, id, upward: true, transport == .stream ? "no open connection" : "link down")
            return
        }
        switch net.fate(transport, link: NetworkModel.link(c, upward: true)) {
        case .deliver(let after):
            var at = now + after
            if transport == .stream { at = max(at, link.lastUpAt); link.lastUpAt = at; links[c.index] = link }
            inFlight += 1
            queue.push(at: at, .up(c, slot: upInFlight.put(m), epoch: link.epoch, msg: id))
        case .deliverTwice(let a, let b):
            inFlight += 2
            queue.push(at: now + a, .up(c, slot: upInFlight.put(m), epoch: link.epoch, msg: id))
            queue.push(at: now + b, .up(c, slot: upInFlight.put(m), epoch: link.epoch, msg: id))
        case .lose:
            lose(c, id, upward: true, "dropped by the network")
        case .reset:
            lose(c, id, upward: true, "connection reset by the network")
            closeConnection(c, notifyClient: true, reason: "connection reset")
        }
    }

    @inlinable
    mutating func lose(_ c: ClientID, _ id: UInt32, upward: Bool, _ why: String) {
        _history.countMessageLost()
        recorder.begin(now, 0x41); recorder.hasher.combine(id)
        if recorder.keepsLines {
            recorder.line(now, .lose, client: c, message: id, upward: upward, label: "lost",
                          "message \(id) " + (upward ? "from \(c)" : "to \(c)") + " is lost: \(why)")
        }
    }

    @inlinable
    mutating func deliverUp(_ c: ClientID, _ m: Up, _ epoch: UInt32, _ id: UInt32) {
        inFlight -= 1
        let link = links[c.index]
        guard link.epoch == epoch, transport == .stream ? link.isOpen : link.isUp else {
            lose(c, id, upward: true, "the link went down while it was in flight")
            return
        }
        if tenancyOn {
            // A logged-out client has no session: the server turns its request away.
            guard let t = tenantOf[c.index] else { lose(c, id, upward: true, "logged out: no session"); return }
            enterTenantServer(t)
        }
        for w in m.carriedWrites where !deliveredWrites.insert(w).inserted { _history.countDuplicateWriteDelivery() }
        recorder.begin(now, 0x42); recorder.hasher.combine(id)
        if recorder.keepsLines {
            recorder.line(now, .deliver, client: c, message: id, upward: true, label: m.kind, "server receives \(m) from \(c)")
        }
        server.handle(.received(from: c, m), now: now, out: &sOut)
        drainServer()
    }

    @inlinable
    mutating func deliverDown(_ c: ClientID, _ m: Down, _ epoch: UInt32, _ id: UInt32) {
        inFlight -= 1
        let link = links[c.index]
        guard link.epoch == epoch, transport == .stream ? link.isOpen : link.isUp else {
            lose(c, id, upward: false, "the link went down while it was in flight")
            return
        }
        recorder.begin(now, 0x43); recorder.hasher.combine(id)
        if recorder.keepsLines {
            recorder.line(now, .deliver, client: c, message: id, upward: false, label: m.kind, "\(c) receives \(m)")
        }
        if armedCrash[c.index] == .duringApply {
            // Armed until a received message makes the client persist; it dies at that persist.
            applyingBeforeCrash = c
            clientInput(c, .received(m))
            applyingBeforeCrash = nil
            return
        }
        clientInput(c, .received(m))
    }

    // MARK: - Server

    @inlinable
    mutating func drainServer(initial: Bool = false) {
        if sOut.isEmpty { return }
        var effects = sSpare
        sSpare = []
        sOut.swapEffects(&effects)
        defer { effects.removeAll(keepingCapacity: true); sSpare = effects }
        // "Commit unknown": after applying a transaction of a client armed with it, the server's
        // path crashes; what it would send that client in this step is lost, its connection resets.
        var ackLostTo: ClientID? = nil
        // Moved out, not copied (as in `drainClient`).
        for k in effects.indices {
            var e = ServerEffect<Down>.cancelTimer(TimerID(0))
            swap(&e, &effects[k])
            switch e {
            case .send(let c, let m):
                if tenancyOn, tenantOf[c.index] != activeServerTenant {
                    sendDown(c, m, lostBecause: "\(c) is not in \(activeServerTenant) (its connection to this tenant's server is closed)")
                    continue
                }
                sendDown(c, m, lostBecause: c == ackLostTo ? "the server crashed before acknowledging (commit unknown)" : nil)
            case .disconnect(let c):
                if tenancyOn, tenantOf[c.index] != activeServerTenant { continue }
                closeConnection(c, notifyClient: true, reason: "server closed it")
            case .setTimer(let id, let after):
                nextTimerGen &+= 1
                let gen = nextTimerGen
                serverTimerGen[id] = gen
                if tenancyOn { serverTimerTenant[gen] = activeServerTenant }
                if recorder.keepsLines { timerDurations[gen] = max(0, after) }
                queue.push(at: now + max(0, after), .serverTimer(id, gen: gen))
            case .cancelTimer(let id): serverTimerGen[id] = nil
            case .applied(let tx):
                if initial { continue }
                _history.recordApplied(tx, at: now)
                recorder.begin(now, 0x50); recorder.hasher.combine(tx.txID); recorder.hasher.combine(tx.ops.count)
                for op in tx.ops { op.stableHash(into: &recorder.hasher) }
                if recorder.keepsLines {
                    let ws = tx.writes.isEmpty ? "" : " [" + tx.writes.map(\.description).joined(separator: ", ") + "]"
                    recorder.line(now, .applied, client: nil, label: "tx \(tx.txID)",
                                  "server applies tx \(tx.txID) from \(tx.origin)\(ws)\(tx.supersededText): " + tx.ops.map(\.description).joined(separator: "; "))
                }
                let d = server.data
                if let x = export { x.applied(tx, data: d, at: now) }
                if tenancyOn { monitor.appliedInTenant(tx, activeServerTenant, _history, at: now) }
                monitor.applied(tx, data: d, at: now)
                if case .client(let oc) = tx.origin, armedCrash[oc.index] == .commitUnknown {
                    armedCrash[oc.index] = nil
                    ackLostTo = oc
                    recorder.begin(now, 0x68); recorder.hasher.combine(oc.index)
                    if recorder.keepsLines { recorder.line(now, .network, client: oc, label: "commit unknown", "the server crashes after applying tx \(tx.txID) from \(oc), before acknowledging it") }
                }
            case .refused(let origin, let writes, let reason):
                if let x = export { x.refused(origin, writes, reason: reason, at: now) }
                monitor.refused(origin, writes)
                recorder.begin(now, 0x51); recorder.hasher.combine(reason)
                if recorder.keepsLines {
                    recorder.line(now, .refused, client: nil, label: "refused",
                                  "server refuses \(writes.map(\.description).joined(separator: ", ")) from \(origin): \(reason)")
                }
            case .invalidInput(let s):
                recorder.begin(now, 0x52); recorder.hasher.combine(s)
                if recorder.keepsLines { recorder.line(now, .refused, client: nil, label: "invalid", "server reports invalid input: \(s)") }
            case .note(let text):
                if recorder.keepsLines { recorder.line(now, .event, client: nil, label: "note", "server notes: \(text)") }
            }
        }
        if let c = ackLostTo, transport == .stream, links[c.index].isOpen {
            closeConnection(c, notifyClient: true, reason: "the server crashed before acknowledging (commit unknown)")
        }
    }

    @inlinable
    /// - Parameter lostBecause: a reason the message never leaves the server (a `commitUnknown`
    ///   crash); it is then counted and told as sent and lost, never delivered.
    mutating func sendDown(_ c: ClientID, _ m: Down, lostBecause: String? = nil) {
        nextMessage &+= 1
        let id = nextMessage
        _history.countMessageSent()
        recorder.begin(now, 0x44); recorder.hasher.combine(c.index); m.stableHash(into: &recorder.hasher)
        if recorder.keepsLines {
            recorder.line(now, .send, client: c, message: id, upward: false, label: m.kind, "server \(lostBecause == nil ? "sends" : "would send") \(c) \(m)")
        }
        if let lostBecause {
            lose(c, id, upward: false, lostBecause)
            return
        }
        var link = links[c.index]
        let usable = transport == .stream ? link.isOpen : link.isUp
        guard usable else {
            lose(c, id, upward: false, transport == .stream ? "no open connection" : "link down")
            return
        }
        switch net.fate(transport, link: NetworkModel.link(c, upward: false)) {
        case .deliver(let after):
            var at = now + after
            if transport == .stream { at = max(at, link.lastDownAt); link.lastDownAt = at; links[c.index] = link }
            inFlight += 1
            queue.push(at: at, .down(c, slot: downInFlight.put(m), epoch: link.epoch, msg: id))
        case .deliverTwice(let a, let b):
            inFlight += 2
            queue.push(at: now + a, .down(c, slot: downInFlight.put(m), epoch: link.epoch, msg: id))
            queue.push(at: now + b, .down(c, slot: downInFlight.put(m), epoch: link.epoch, msg: id))
        case .lose:
            lose(c, id, upward: false, "dropped by the network")
        case .reset:
            lose(c, id, upward: false, "connection reset by the network")
            closeConnection(c, notifyClient: true, reason: "connection reset")
        }
    }

    // MARK: - Network and lifecycle

    @inlinable
    mutating func connect(_ c: ClientID) {
        var link = links[c.index]
        recorder.begin(now, 0x60); recorder.hasher.combine(c.index)
        if link.device == .offline {
            _history.recordConnectWhileOffline(c, at: now)
            if let x = export { x.connect(c, at: now) }
            monitor.connectWhileOffline(c, at: now)
        }
        if recorder.keepsLines { recorder.line(now, .connect, client: c, label: "connect", "\(c) opens a connection") }
        if link.connection != .none { breakLink(c, &link) }
        link.epoch &+= 1
        link.connection = .connecting(epoch: link.epoch)
        links[c.index] = link
        if tenancyOn, tenantOf[c.index] == nil {
            // Logged out: no session, the server refuses the connection.
            queue.push(at: now, .connectResult(c, epoch: link.epoch, ok: false))
        } else if link.device == .offline {
            queue.push(at: now, .connectResult(c, epoch: link.epoch, ok: false))
        } else if !link.reachable {
            queue.push(at: now + options.connectTimeoutMs, .connectResult(c, epoch: link.epoch, ok: false))
        } else {
            let there = net.latency(NetworkModel.link(c, upward: true))
            let back = net.latency(NetworkModel.link(c, upward: false))
            queue.push(at: now + there, .serverSeesConnect(c, epoch: link.epoch))
            queue.push(at: now + there + back, .connectResult(c, epoch: link.epoch, ok: true))
        }
    }

    /// Ends the current epoch: messages in flight are lost; the server learns the client is gone.
    @inlinable
    mutating func breakLink(_ c: ClientID, _ link: inout LinkState) {
        link.epoch &+= 1
        link.connection = .none
        link.lastUpAt = 0
        link.lastDownAt = 0
        if serverKnowsConnected[c.index] {
            serverKnowsConnected[c.index] = false
            links[c.index] = link
            if tenancyOn, let t = tenantOf[c.index] { enterTenantServer(t) }
            server.handle(.clientDisconnected(c), now: now, out: &sOut)
            drainServer()
        }
    }

    @inlinable
    mutating func closeConnection(_ c: ClientID, notifyClient: Bool, reason: String) {
        var link = links[c.index]
        let had = link.connection != .none
        breakLink(c, &link)
        links[c.index] = link
        if had && recorder.keepsLines {
            recorder.line(now, .connect, client: c, label: "closed", "\(c)'s connection closes: \(reason)")
        }
        if had && notifyClient && transport == .stream {
            disconnectNoticePending[c.index] = true
            queue.push(at: now, .noticeDisconnect(c, incarnation: incarnation[c.index]))
        }
    }

    @inlinable
    mutating func setDevice(_ c: ClientID, _ d: DeviceNetwork) {
        var link = links[c.index]
        guard link.device != d else { return }
        let hadConnection = link.connection != .none
        link.device = d
        if let x = export { x.device(c, online: d == .online, at: now) }
        recorder.begin(now, 0x61); recorder.hasher.combine(c.index); recorder.hasher.combine(d == .online)
        if recorder.keepsLines {
            recorder.line(now, .network, client: c, label: d == .online ? "online" : "offline",
                          "\(c) goes \(d == .online ? "online" : "offline")")
        }
        if d == .offline { breakLink(c, &link) }
        links[c.index] = link
        clientInput(c, .network(d))
        if d == .offline && hadConnection && transport == .stream {
            disconnectNoticePending[c.index] = false
            clientInput(c, .disconnected)
        }
    }

    @inlinable
    mutating func setReachable(_ c: ClientID, _ r: Bool) {
        var link = links[c.index]
        guard link.reachable != r else { return }
        let hadConnection = link.connection != .none
        link.reachable = r
        if let x = export { x.reachable(c, r, at: now) }
        recorder.begin(now, 0x62); recorder.hasher.combine(c.index); recorder.hasher.combine(r)
        if recorder.keepsLines {
            recorder.line(now, .network, client: c, label: r ? "reachable" : "unreachable",
                          r ? "the server is reachable from \(c) again" : "the server becomes unreachable from \(c) (the device still reports online)")
        }
        if !r { breakLink(c, &link) }
        links[c.index] = link
        if !r && hadConnection && transport == .stream {
            disconnectNoticePending[c.index] = true
            queue.push(at: now + options.unreachableDetectMs, .noticeDisconnect(c, incarnation: incarnation[c.index]))
        }
    }

    /// Client `c` launches anew from its durable state (a restart, or a tenant's database
    /// opened): new incarnation, timers of the old one void, the device's network state told,
    /// and the subscriptions the user has open subscribed again — each judged as the user's
    /// subscribe is (`cachedSubscriptionOffline` at relaunch).
    @inlinable
    mutating func relaunch(_ c: ClientID, device: DeviceNetwork) {
        incarnation[c.index] += 1
        clientTimerGen[c.index].removeAll()
        clients[c.index] = strategy.makeClient(clientContext(c), restoring: durable[c.index])
        clientSteps[c.index] &+= 1
        clientInput(c, .network(device))
        for (s, q) in activeSubs[c.index] {
            recorder.begin(now, 0x64); recorder.hasher.combine(s.raw)
            withMonitor { $0.beforeCommand(c, .subscribe(s, q), $1) }
            clientInput(c, .user(.subscribe(s, q)))
            withMonitor { $0.afterCommand(c, .subscribe(s, q), $1) }
        }
    }

    @inlinable
    mutating func restart(_ c: ClientID) {
        let before = clients[c.index].pendingWrites
        recorder.begin(now, 0x63); recorder.hasher.combine(c.index)
        if recorder.keepsLines { recorder.line(now, .network, client: c, label: "restart", "\(c) crashes and relaunches") }
        var link = links[c.index]
        breakLink(c, &link)
        links[c.index] = link
        disconnectNoticePending[c.index] = false
        relaunch(c, device: link.device)
        _history.recordRestart(c, at: now, pendingAtCrash: before, pendingAfter: clients[c.index].pendingWrites)
        if let x = export { x.restart(c, at: now, pendingAtCrash: before, pendingAfter: clients[c.index].pendingWrites) }
    }

    @inlinable
    mutating func heal() {
        healed = true
        _history.setHealTime(now)
        if let x = export { x.heal(at: now) }
        net.heal()
        recorder.begin(now, 0x70)
        if recorder.keepsLines { recorder.line(now, .heal, client: nil, label: "heal", "heal: every client online and reachable, faults off") }
        for i in 0..<options.clients {
            let c = ClientID(i)
            if links[i].device == .offline { setDevice(c, .online) }
            if !links[i].reachable { setReachable(c, true) }
        }
        queue.push(at: now, .settleCheck)
    }

    /// Settled: nothing in flight, no pending write, no open prompt, every subscription equal to
    /// the server's answer for its query.
    @inlinable
    public func isSettled() -> Bool {
        guard inFlight == 0, unresolvedConflicts == 0 else { return false }
        if tenancyOn { return isSettledWithTenants() }
        let data = server.data
        for i in 0..<options.clients {
            if clients[i].pendingWriteCount != 0 { return false }
            for (s, q) in activeSubs[i] {
                // Compared without building the server's answer (a settle check runs every 250 ms
                // of virtual time after heal, over every subscription).
                guard let r = clients[i].result(of: s), q.evaluates(data, to: r) else { return false }
            }
        }
        return true
    }

    /// `isSettled()`, asked of the subscription that was not settled at the last check first,
    /// and of every client's pending count before any subscription: the same conjunction of pure
    /// tests, so the same answer, but an unsettled run (a check every 250 ms after heal) is
    /// usually told by one comparison of one result instead of every result before it.
    @inlinable
    mutating func isSettledFromHint() -> Bool {
        guard inFlight == 0, unresolvedConflicts == 0 else { return false }
        if tenancyOn { return isSettledWithTenants() }
        for i in 0..<options.clients where clients[i].pendingWriteCount != 0 { return false }
        let data = server.data
        if let h = settleHint, h.0 < activeSubs.count, h.1 < activeSubs[h.0].count {
            let i = h.0
            let (s, q) = activeSubs[i][h.1]
            guard let r = clients[i].result(of: s), q.evaluates(data, to: r) else { return false }
        }
        for i in 0..<options.clients {
            for k in activeSubs[i].indices {
                let (s, q) = activeSubs[i][k]
                guard let r = clients[i].result(of: s), q.evaluates(data, to: r) else {
                    settleHint = (i, k)
                    return false
                }
            }
        }
        return true
    }

    @inlinable
    mutating func settleCheck() {
        if isSettledFromHint() {
            _history.setSettledTime(now)
            finished = true
            return
        }
        if now - _history.healTime >= options.settleLimitMs {
            let why = "the run did not settle within \(options.settleLimitMs) ms of virtual time after heal"
            if let x = export { x.unsettled(why, at: now) }
            monitor.liveness(at: now, why)
            finished = true
            return
        }
        queue.push(at: now + 250, .settleCheck)
    }

    /// Lends the monitor the simulator: the monitor changed in place, the simulator read in
    /// place through `SimulatorView` (neither copied). (Moving the monitor out for the call and
    /// back, as before, copied its many words two to three times per call; a swap with a
    /// stand-in, before that, six times and more.)
    @inlinable @inline(__always)
    mutating func withMonitor(_ body: (inout Monitor, SimulatorView<S>) -> Void) {
        withUnsafeMutablePointer(to: &self) { p in
            body(&p.pointee._monitor!, SimulatorView(p))
        }
    }

    /// Writes this run, as it happens, as a history (`HistoryRecorder`'s format; one line per
    /// call of `sink`, header first) that `syncsim check` judges with the same oracles. Call
    /// before `run()`. Changes nothing about the run: not its events, trace hash or verdicts.
    @inlinable
    public mutating func exportHistory(to sink: @escaping (String) -> Void) {
        let header = HistoryHeader(schema: schedule.schema, clients: options.clients, queueCap: options.queueCap,
                                   persistence: options.persistence, skews: (0..<options.clients).map { options.skew(of: ClientID($0)) },
                                   arbitration: strategy.info.arbitration,
                                   contract: strategy.info.contract.union(strategy.info.conditionalContract.filter { $0.condition.holds(in: options) }.map(\.invariant)).sorted(),
                                   strategy: strategy.info.name, initial: server.data)
        export = SimulationExport(header: header, sink: sink)
    }

    // MARK: - Observations for oracles

    @inlinable
    public var virtualTime: Int64 { now }
    /// The server's data; with tenants, tenant 0's (`serverData(of:)` for the others).
    @inlinable
    public var serverData: EntityStore { tenancyOn ? tenantData(.initial) : server.data }
    @inlinable
    public func client(_ c: ClientID) -> S.Client { clients[c.index] }
    @inlinable
    public func subscriptions(of c: ClientID) -> [(SubscriptionID, Query)] { activeSubs[c.index] }
    @inlinable
    public func link(_ c: ClientID) -> LinkState { links[c.index] }
    @inlinable
    public var clientCount: Int { options.clients }
    @inlinable
    public var compiledSchedule: CompiledSchedule { compiled }

    /// Once per run: compiled here, unspecialised (not worth making `RunResult`'s initialisers
    /// `@usableFromInline`).
    @usableFromInline
    func makeResult() -> RunResult {
        var clientsOut: [RunResult.ClientFinal] = []
        for i in 0..<options.clients {
            let tenantData = tenancyOn ? tenantOf[i].map { self.tenantData($0) } ?? EntityStore() : server.data
            let subs = activeSubs[i].map { (s, q) in
                RunResult.SubscriptionFinal(id: s, query: q, result: clients[i].result(of: s), expected: q.evaluate(tenantData))
            }
            clientsOut.append(.init(client: ClientID(i), subscriptions: subs, pendingWrites: clients[i].pendingWrites))
        }
        var result = RunResult(strategy: strategy.info.name, seed: seed, events: events, traceEvents: recorder.count,
                               virtualDurationMs: now, traceHash: recorder.hasher.value, server: serverData,
                               clients: clientsOut, violations: _monitor!.violations.sorted(), history: _history,
                               trace: recorder.lines, settled: _history.settledTime != nil)
        if !customInvariants.isEmpty { judgeCustom(&result) }
        return result
    }

    /// Runs the user invariants on the finished run and merges their violations into the
    /// result. After everything else, on the final record: nothing here can change the run, its
    /// trace hash or the built-in verdicts (the sort is stable, and violations of different
    /// invariants never compare equal, so the built-ins keep their relative order).
    @usableFromInline
    func judgeCustom(_ result: inout RunResult) {
        let input = RunHistory(strategy: strategy.info, schedule: schedule, result: result)
        var all = result.violations
        for inv in customInvariants { all += inv.check(input) }
        result.violations = all.sorted()
        result.customInvariants = customInvariants.map(\.id)
    }
}

extension Simulator {
    /// Convenience: compile, run, return. `invariants`: user invariants to judge the run by too
    /// (see `init(strategy:schedule:seed:trace:invariants:)`).
    @inlinable
    public static func run(_ strategy: S, _ schedule: Schedule, seed: UInt64, trace: TraceMode = .hashOnly,
                           invariants: [CustomInvariant] = []) throws -> RunResult {
        var sim = try Simulator(strategy: strategy, schedule: schedule, seed: seed, trace: trace, invariants: invariants)
        return sim.run()
    }
}

/// Transcript helpers: drive one machine input by input and get its effects back as an array,
/// so tests read as `#expect(client.step(.network(.online)) == [.connect])` (postgres-nio style).

extension ClientMachine {
    /// Feeds one input at `now` and returns the effects, in order.
    public mutating func step(_ input: ClientInput<Down>, now: Int64 = 0) -> [ClientEffect<Up>] {
        var out = ClientOutbox<Up>()
        handle(input, now: now, out: &out)
        return out.effects
    }
}

extension ServerMachine {
    public mutating func step(_ input: ServerInput<Up>, now: Int64 = 0) -> [ServerEffect<Down>] {
        var out = ServerOutbox<Down>()
        handle(input, now: now, out: &out)
        return out.effects
    }
}

extension ClientContext {
    /// A context for tests and user strategies' own harnesses.
    public static func testing(_ id: ClientID = ClientID(0), clients: Int = 2, persistence: Bool = true,
                               queueCap: Int = 200, seed: UInt64 = 1, incarnation: Int = 0, schema: Schema = .default) -> ClientContext {
        ClientContext(id: id, schema: schema, clientCount: clients, persistence: persistence, queueCap: queueCap,
                      random: SimRandom(seed: seed).fork(.client(id.index)), incarnation: incarnation, options: StrategyOptions())
    }
}

extension ServerContext {
    public static func testing(clients: Int = 2, seed: UInt64 = 1, schema: Schema = .default) -> ServerContext {
        ServerContext(schema: schema, clientCount: clients, random: SimRandom(seed: seed).fork(.server), options: StrategyOptions())
    }
}

/// A synthetic history of any length, for measuring `check` (`syncsim check --bench-events N`):
/// three clients each subscribed to the todos, taking turns writing one todo's title; each write
/// is shown at once, queued, committed by the server, confirmed, dequeued, and every client's
/// subscription yields the new data. Nine lines per write, each line a realistic size (yields
/// carry whole results), and a clean history: every oracle it has data for holds.
///
/// Deterministic (no randomness: the sequence is arithmetic), and streamed to `sink` so its size
/// never sits in memory.
public enum SyntheticHistory {
    /// Writes at least `events` event lines (plus the header) to `sink`; returns the number written.
    @discardableResult
    public static func generate(events: Int, sink: (String) -> Void) -> Int {
        let schema = Schema.default
        let todos = schema.namespace(named: "todos")!
        let title = schema.field(named: "title", in: todos)!
        let todoCount = 8
        let clients = 3
        var data = EntityStore()
        for i in 0..<todoCount {
            var r = EntityRecord(namespace: todos, schema: schema)
            r[title] = .string("todo \(i)")
            data[EntityID(UInt32(i))] = r
        }
        let header = HistoryHeader(schema: schema, clients: clients, queueCap: 200, persistence: true,
                                   arbitration: .serverArrival, strategy: "synthetic", initial: data)
        var lines: [String] = []
        let rec = HistoryRecorder(header: header, sink: { lines.append($0) })
        let q = Query(todos)
        var t: Int64 = 0
        var seq = Array(repeating: Int64(0), count: clients)
        func next(_ c: ClientID) -> Int64 { seq[c.index] += 1; return seq[c.index] }
        var written = 0
        func flush() {
            for l in lines { sink(l) }
            written += lines.count
            lines.removeAll(keepingCapacity: true)
        }
        flush()
        written = 0
        for i in 0..<clients {
            let c = ClientID(i)
            rec.subscribe(SubscriptionID(UInt32(i)), q, client: c, at: t, seq: next(c))
            rec.told(.subscriptionYielded(SubscriptionID(UInt32(i)), fromCache: false), client: c, at: t, seq: next(c),
                     result: .some(q.evaluate(data)), connected: true)
            rec.actionDone(client: c, at: t, seq: next(c))
        }
        rec.heal(at: 0)
        var w: UInt32 = 0
        while written + lines.count < events && w < UInt32(HistoryLimits.writeIDs.upperBound) {
            let c = ClientID(Int(w) % clients)
            let e = EntityID(UInt32((Int(w) * 5 + 3) % todoCount))
            let write = UserWrite(id: WriteID(w), ops: [.update(e, todos, [FieldAssignment(title, .string("title \(w)"))])])
            t += 7
            rec.write(write, client: c, at: t, clientTime: t, seq: next(c))
            _ = data.apply(write.ops[0], schema: schema, mode: .update)
            let shown = q.evaluate(data)
            rec.told(.subscriptionYielded(SubscriptionID(UInt32(c.index)), fromCache: false), client: c, at: t, seq: next(c),
                     result: .some(shown), connected: true)
            rec.queue([write.id], client: c, at: t, seq: next(c))
            rec.actionDone(client: c, at: t, seq: next(c))
            t += 20
            rec.commit(AppliedTransaction(txID: UInt64(w), origin: .client(c), writes: [write.id], ops: write.ops), at: t,
                       after: [(e, data[e])])
            t += 20
            rec.told(.writeConfirmed(write.id), client: c, at: t, seq: next(c))
            rec.queue([], client: c, at: t, seq: next(c))
            for j in 0..<clients where j != c.index {
                let o = ClientID(j)
                rec.told(.subscriptionYielded(SubscriptionID(UInt32(j)), fromCache: false), client: o, at: t, seq: next(o),
                         result: .some(shown), connected: true)
            }
            w += 1
            if lines.count >= 4_096 { flush() }
        }
        rec.serverState(data, at: t)
        rec.end(at: t)
        flush()
        return written
    }
}

import Foundation

/// The JSON form of schedules (documented in `Scenarios/README.md`). One action is one flat
/// object: `{"at": 120, "do": "update", "client": "B", "entity": 1, "set": {"title": "Te"}}`.
/// Every option has a default, so files say only what matters; unknown keys are errors, so a
/// typo never silently changes a run.

struct AnyKey: CodingKey {
    var stringValue: String
    var intValue: Int?
    init(_ s: String) { stringValue = s }
    init?(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { stringValue = String(intValue); self.intValue = intValue }
}

/// Rejects keys a type does not know, naming the allowed ones.
func rejectUnknownKeys(_ decoder: Decoder, allowed: [String]) throws {
    let c = try decoder.container(keyedBy: AnyKey.self)
    for k in c.allKeys.map(\.stringValue).sorted() where !allowed.contains(k) {
        throw DecodingError.dataCorruptedError(
            forKey: AnyKey(k), in: c,
            debugDescription: "unknown key '\(JSONText.clipped(k))'; expected one of: \(allowed.joined(separator: ", "))")
    }
}

/// Schema ids are written by name (`"todos"`, `"title"`, `"author"`), resolved against the
/// schema being decoded or encoded (`Schema.describing`, which `Schedule`'s coding sets to its own
/// schema); an unknown name is an error listing the valid ones.
protocol SchemaNamed: Codable {
    static var kindName: String { get }
    static func names(in schema: Schema) -> [String]
    init?(schemaName: String, in schema: Schema)
    func name(in schema: Schema) -> String
}

extension SchemaNamed {
    public init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        let s = try c.decode(String.self)
        let schema = Schema.describing
        guard let v = Self(schemaName: s, in: schema) else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "unknown \(Self.kindName) '\(Schema.clip(s))'\(suggestion(s, Self.names(in: schema))); expected one of: \(Self.names(in: schema).joined(separator: ", "))")
        }
        self = v
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(name(in: Schema.describing))
    }
}

/// `; did you mean 'title'?` when a name is one edit or transposition away from a valid one.
func suggestion(_ s: String, _ valid: [String]) -> String {
    let best = valid.map { ($0, editDistance(s.lowercased(), $0.lowercased())) }.min { $0.1 < $1.1 }
    guard let (name, d) = best, d <= max(1, name.count / 3) else { return "" }
    return "; did you mean '\(name)'?"
}

/// Edit distance with adjacent transpositions (optimal string alignment), for "did you mean":
/// `lable` is one edit from `label`. Small strings only (names and options; capped at 64 bytes).
public func editDistance(_ a: String, _ b: String) -> Int {
    let x = Array(a.utf8.prefix(64)), y = Array(b.utf8.prefix(64))
    if x.isEmpty { return y.count }
    if y.isEmpty { return x.count }
    var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { d[i][0] = i }
    for j in 0...y.count { d[0][j] = j }
    for i in 1...x.count {
        for j in 1...y.count {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
    }
    return d[x.count][y.count]
}

extension NamespaceID: SchemaNamed {
    static var kindName: String { "namespace" }
    static func names(in schema: Schema) -> [String] { schema.namespaceNames }
    init?(schemaName: String, in schema: Schema) {
        guard let n = schema.namespace(named: schemaName) else { return nil }
        self = n
    }
    func name(in schema: Schema) -> String { schema.name(of: self) }
}

extension FieldID: SchemaNamed {
    static var kindName: String { "field" }
    static func names(in schema: Schema) -> [String] { schema.allFieldNames }
    init?(schemaName: String, in schema: Schema) {
        guard let f = schema.field(named: schemaName) else { return nil }
        self = f
    }
    func name(in schema: Schema) -> String { schema.name(of: self) }
}

extension LinkID: SchemaNamed {
    static var kindName: String { "link" }
    static func names(in schema: Schema) -> [String] { schema.allLinkNames }
    init?(schemaName: String, in schema: Schema) {
        guard let l = schema.link(named: schemaName) else { return nil }
        self = l
    }
    func name(in schema: Schema) -> String { schema.name(of: self) }
}

/// `{"title": "Te", "done": true}`, in field order when written.
struct FieldSet: Codable {
    var values: [FieldAssignment]
    init(_ v: [FieldAssignment]) { values = v }

    init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: AnyKey.self)
        let schema = Schema.describing
        var out: [FieldAssignment] = []
        for k in c.allKeys {
            guard let f = schema.field(named: k.stringValue) else {
                throw DecodingError.dataCorruptedError(forKey: k, in: c, debugDescription: "unknown field '\(Schema.clip(k.stringValue))'\(suggestion(k.stringValue, schema.allFieldNames)); expected one of: \(schema.allFieldNames.joined(separator: ", "))")
            }
            out.append(FieldAssignment(f, try c.decode(FieldValue.self, forKey: k)))
        }
        values = out.sorted { $0.field < $1.field }
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: AnyKey.self)
        for v in values { try c.encode(v.value, forKey: AnyKey(Schema.describing.name(of: v.field))) }
    }
}

extension Query: Codable {
    enum K: String, CodingKey { case namespace, `where`, include, limit }

    /// The query parts (`where`, `limit`, `include`) are read by `QueryJSON`, shared with the
    /// history codec; a failure there is reported at its path inside the query.
    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: ["namespace", "where", "limit", "include"])
        let c = try decoder.container(keyedBy: K.self)
        let schema = Schema.describing
        namespace = try c.decode(NamespaceID.self, forKey: .namespace)
        filter = nil
        condition = nil
        limit = nil
        includes = []
        do {
            if let w = try c.decodeIfPresent(QueryJSON.self, forKey: .where) { (filter, condition) = try QueryJSON.readWhere(w, namespace, schema) }
            if let l = try c.decodeIfPresent(QueryJSON.self, forKey: .limit) { limit = try QueryJSON.readLimit(l) }
            if let i = try c.decodeIfPresent(QueryJSON.self, forKey: .include) { includes = try QueryJSON.readIncludes(i, namespace, schema) }
        } catch let f as QueryJSON.Failure {
            throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + f.codingKeys, debugDescription: f.message))
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(namespace, forKey: .namespace)
        let schema = Schema.describing
        if let w = QueryJSON.whereValue(self, schema) { try c.encode(w, forKey: .where) }
        if let l = limit { try c.encode(l, forKey: .limit) }
        if let i = QueryJSON.includeValue(self, schema) { try c.encode(i, forKey: .include) }
    }
}

extension TimedAction: Codable {
    enum K: String, CodingKey {
        case at, `do`, client, entity, namespace, set, link, target, field, text, everyMs, sub, query, choice, point, tenant
        case firstEntity, count
    }

    /// The keys each action kind takes besides `at` and `do`.
    static func keys(_ kind: ActionKind) -> [K] {
        switch kind {
        case .create: return [.client, .entity, .namespace, .set]
        case .update: return [.client, .entity, .set]
        case .delete: return [.client, .entity]
        case .link, .unlink: return [.client, .entity, .link, .target]
        case .type: return [.client, .entity, .field, .text, .everyMs]
        case .serverCreate: return [.entity, .namespace, .set]
        case .serverUpdate: return [.entity, .set]
        case .serverDelete: return [.entity]
        case .subscribe: return [.client, .sub, .query]
        case .unsubscribe: return [.client, .sub]
        case .queryOnce: return [.client, .query]
        case .offline, .online, .unreachable, .reachable, .restart, .dropOldest: return [.client]
        case .forceSync: return [.client, .choice]
        case .crash: return [.client, .point]
        case .syncNow: return [.client]
        case .bulkCreate: return [.client, .firstEntity, .count, .namespace, .set]
        case .switchTenant: return [.client, .tenant]
        case .logout: return [.client]
        }
    }

    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: K.self)
        at = try c.decode(Int64.self, forKey: .at)
        let name = try c.decode(String.self, forKey: .do)
        guard let kind = ActionKind(rawValue: name) else {
            throw DecodingError.dataCorruptedError(forKey: .do, in: c,
                debugDescription: "unknown action '\(JSONText.clipped(name))'; expected one of: \(ActionKind.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        try rejectUnknownKeys(decoder, allowed: ["at", "do"] + Self.keys(kind).map(\.rawValue))
        func client() throws -> ClientID { try c.decode(ClientID.self, forKey: .client) }
        func entity(_ k: K = .entity) throws -> EntityID { try c.decode(EntityID.self, forKey: k) }
        func set() throws -> [FieldAssignment] { try c.decode(FieldSet.self, forKey: .set).values }
        switch kind {
        case .create: action = .create(try client(), try entity(), try c.decode(NamespaceID.self, forKey: .namespace), try set())
        case .update: action = .update(try client(), try entity(), try set())
        case .delete: action = .delete(try client(), try entity())
        case .link: action = .link(try client(), try entity(), try c.decode(LinkID.self, forKey: .link), try entity(.target))
        case .unlink: action = .unlink(try client(), try entity(), try c.decode(LinkID.self, forKey: .link), try entity(.target))
        case .type:
            action = .type(try client(), try entity(), try c.decode(FieldID.self, forKey: .field),
                           try c.decode(String.self, forKey: .text), everyMs: try c.decodeIfPresent(Int64.self, forKey: .everyMs) ?? 40)
        case .serverCreate: action = .serverCreate(try entity(), try c.decode(NamespaceID.self, forKey: .namespace), try set())
        case .serverUpdate: action = .serverUpdate(try entity(), try set())
        case .serverDelete: action = .serverDelete(try entity())
        case .subscribe: action = .subscribe(try client(), try c.decode(SubscriptionID.self, forKey: .sub), try c.decode(Query.self, forKey: .query))
        case .unsubscribe: action = .unsubscribe(try client(), try c.decode(SubscriptionID.self, forKey: .sub))
        case .queryOnce: action = .queryOnce(try client(), try c.decode(Query.self, forKey: .query))
        case .offline: action = .goOffline(try client())
        case .online: action = .goOnline(try client())
        case .unreachable: action = .serverUnreachable(try client())
        case .reachable: action = .serverReachable(try client())
        case .restart: action = .restart(try client())
        case .dropOldest: action = .dropOldestWrite(try client())
        case .forceSync: action = .forceSync(try client(), try c.decode(ConflictChoice.self, forKey: .choice))
        case .syncNow: action = .syncNow(try client())
        case .bulkCreate:
            // `count` is range-checked by `compile()` (with the ids it spans); `set` is optional.
            action = .bulkCreate(try client(), firstEntity: try entity(.firstEntity), count: try c.decode(Int.self, forKey: .count),
                                 try c.decode(NamespaceID.self, forKey: .namespace), try c.decodeIfPresent(FieldSet.self, forKey: .set)?.values ?? [])
        case .switchTenant: action = .switchTenant(try client(), try c.decode(TenantID.self, forKey: .tenant))
        case .logout: action = .logout(try client())
        case .crash:
            let point = try c.decode(String.self, forKey: .point)
            guard let p = CrashPoint(rawValue: point) else {
                throw DecodingError.dataCorruptedError(forKey: .point, in: c,
                    debugDescription: "unknown crash point '\(Schema.clip(point))'; expected one of: \(CrashPoint.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            action = .crash(try client(), p)
        }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(at, forKey: .at)
        try c.encode(action.kind.rawValue, forKey: .do)
        if let cl = action.client { try c.encode(cl, forKey: .client) }
        switch action {
        case .create(_, let e, let n, let v), .serverCreate(let e, let n, let v):
            try c.encode(e, forKey: .entity); try c.encode(n, forKey: .namespace); try c.encode(FieldSet(v), forKey: .set)
        case .update(_, let e, let v), .serverUpdate(let e, let v):
            try c.encode(e, forKey: .entity); try c.encode(FieldSet(v), forKey: .set)
        case .delete(_, let e), .serverDelete(let e):
            try c.encode(e, forKey: .entity)
        case .link(_, let e, let l, let t), .unlink(_, let e, let l, let t):
            try c.encode(e, forKey: .entity); try c.encode(l, forKey: .link); try c.encode(t, forKey: .target)
        case .type(_, let e, let f, let text, let every):
            try c.encode(e, forKey: .entity); try c.encode(f, forKey: .field); try c.encode(text, forKey: .text); try c.encode(every, forKey: .everyMs)
        case .subscribe(_, let s, let q):
            try c.encode(s, forKey: .sub); try c.encode(q, forKey: .query)
        case .unsubscribe(_, let s):
            try c.encode(s, forKey: .sub)
        case .queryOnce(_, let q):
            try c.encode(q, forKey: .query)
        case .forceSync(_, let ch):
            try c.encode(ch, forKey: .choice)
        case .crash(_, let p):
            try c.encode(p.rawValue, forKey: .point)
        case .bulkCreate(_, let e, let n, let ns, let v):
            try c.encode(e, forKey: .firstEntity); try c.encode(n, forKey: .count); try c.encode(ns, forKey: .namespace)
            try c.encode(FieldSet(v), forKey: .set)
        case .switchTenant(_, let t):
            try c.encode(t, forKey: .tenant)
        case .goOffline, .goOnline, .serverUnreachable, .serverReachable, .restart, .dropOldestWrite, .syncNow, .logout:
            break
        }
    }
}

extension InitialEntity: Codable {
    enum K: String, CodingKey { case entity, namespace, set, links }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: ["entity", "namespace", "set", "links"])
        let c = try decoder.container(keyedBy: K.self)
        entity = try c.decode(EntityID.self, forKey: .entity)
        namespace = try c.decode(NamespaceID.self, forKey: .namespace)
        values = try c.decodeIfPresent(FieldSet.self, forKey: .set)?.values ?? []
        // `"links": {"author": 2}`; a has-many link takes a list: `{"tags": [4, 5]}`.
        let schema = Schema.describing
        let raw = try c.decodeIfPresent([String: LinkTargets].self, forKey: .links) ?? [:]
        var ls: [LinkAssignment] = []
        for name in raw.keys.sorted() {
            guard let l = schema.link(named: name) else {
                throw DecodingError.dataCorrupted(.init(codingPath: c.codingPath + [K.links, AnyKey(name)],
                    debugDescription: "unknown link '\(Schema.clip(name))'\(suggestion(name, schema.allLinkNames)); expected one of: \(schema.allLinkNames.joined(separator: ", "))"))
            }
            for t in raw[name]!.targets { ls.append(LinkAssignment(l, t)) }
        }
        // In link id order (the order entities are linked in), not the file's key order.
        links = ls.sorted { ($0.link.raw, $0.target.raw) < ($1.link.raw, $1.target.raw) }
    }

    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(entity, forKey: .entity)
        try c.encode(namespace, forKey: .namespace)
        try c.encode(FieldSet(values), forKey: .set)
        if !links.isEmpty {
            let schema = Schema.describing
            var d: [String: LinkTargets] = [:]
            for l in links {
                let name = schema.name(of: l.link)
                if schema.contains(l.link) && schema.isMany(l.link) {
                    d[name, default: LinkTargets(targets: [], many: true)].targets.append(l.target)
                } else {
                    d[name] = LinkTargets(targets: [l.target], many: false)
                }
            }
            try c.encode(d, forKey: .links)
        }
    }
}

/// One link's targets in a file: a single id, or a list for a has-many link.
struct LinkTargets: Codable {
    var targets: [EntityID]
    var many: Bool
    init(targets: [EntityID], many: Bool) { self.targets = targets; self.many = many }
    init(from decoder: Decoder) throws {
        let c = try decoder.singleValueContainer()
        if let list = try? c.decode([EntityID].self) {
            targets = list
            many = true
        } else {
            targets = [try c.decode(EntityID.self)]
            many = false
        }
    }
    func encode(to encoder: Encoder) throws {
        var c = encoder.singleValueContainer()
        if many { try c.encode(targets) } else { try c.encode(targets[0]) }
    }
}

extension SimulationOptions: Codable {
    enum K: String, CodingKey, CaseIterable {
        case clients, persistence, latencyMinMs, latencyMaxMs, dropPpm, duplicatePpm, delayPpm, delayMaxMs
        case clockSkewMs, conflictPolicy, conflictThinkMs, queueCap, connectTimeoutMs, unreachableDetectMs
        case settleLimitMs, maxEvents, sendTimeoutMs, syncIntervalMs, saveDelayMinMs, saveDelayMaxMs
        case pushPullOrder
        case pushBatchSize, pullPageSize, pushPullIdempotentCreates
        case instantCombineTransacts
        case sharedDiffAtomicSaves, sharedDiffTraverseKnown
    }

    public init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: K.allCases.map(\.rawValue))
        let c = try decoder.container(keyedBy: K.self)
        self.init()
        func get<T: Decodable>(_ k: K, _ v: inout T) throws { if let x = try c.decodeIfPresent(T.self, forKey: k) { v = x } }
        try get(.clients, &clients)
        try get(.persistence, &persistence)
        try get(.latencyMinMs, &latencyMinMs)
        try get(.latencyMaxMs, &latencyMaxMs)
        try get(.dropPpm, &dropPpm)
        try get(.duplicatePpm, &duplicatePpm)
        try get(.delayPpm, &delayPpm)
        try get(.delayMaxMs, &delayMaxMs)
        try get(.clockSkewMs, &clockSkewMs)
        try get(.conflictPolicy, &conflictPolicy)
        try get(.conflictThinkMs, &conflictThinkMs)
        try get(.queueCap, &queueCap)
        try get(.connectTimeoutMs, &connectTimeoutMs)
        try get(.unreachableDetectMs, &unreachableDetectMs)
        try get(.settleLimitMs, &settleLimitMs)
        try get(.maxEvents, &maxEvents)
        try get(.sendTimeoutMs, &strategy.sendTimeoutMs)
        try get(.syncIntervalMs, &strategy.syncIntervalMs)
        try get(.saveDelayMinMs, &strategy.saveDelayMinMs)
        try get(.saveDelayMaxMs, &strategy.saveDelayMaxMs)
        try get(.pushPullOrder, &strategy.pushPullOrder)
        try get(.pushBatchSize, &strategy.pushBatchSize)
        try get(.pullPageSize, &strategy.pullPageSize)
        try get(.pushPullIdempotentCreates, &strategy.pushPullIdempotentCreates)
        try get(.instantCombineTransacts, &strategy.instantCombineTransacts)
        try get(.sharedDiffAtomicSaves, &strategy.sharedDiffAtomicSaves)
        try get(.sharedDiffTraverseKnown, &strategy.sharedDiffTraverseKnown)
    }

    /// Writes every option that differs from its default (files say only what matters).
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        let d = SimulationOptions()
        func put<T: Encodable & Equatable>(_ k: K, _ v: T, _ dv: T) throws { if v != dv { try c.encode(v, forKey: k) } }
        try c.encode(clients, forKey: .clients)
        try c.encode(persistence, forKey: .persistence)
        try put(.latencyMinMs, latencyMinMs, d.latencyMinMs)
        try put(.latencyMaxMs, latencyMaxMs, d.latencyMaxMs)
        try put(.dropPpm, dropPpm, d.dropPpm)
        try put(.duplicatePpm, duplicatePpm, d.duplicatePpm)
        try put(.delayPpm, delayPpm, d.delayPpm)
        try put(.delayMaxMs, delayMaxMs, d.delayMaxMs)
        try put(.clockSkewMs, clockSkewMs, d.clockSkewMs)
        try put(.conflictPolicy, conflictPolicy, d.conflictPolicy)
        try put(.conflictThinkMs, conflictThinkMs, d.conflictThinkMs)
        try put(.queueCap, queueCap, d.queueCap)
        try put(.connectTimeoutMs, connectTimeoutMs, d.connectTimeoutMs)
        try put(.unreachableDetectMs, unreachableDetectMs, d.unreachableDetectMs)
        try put(.settleLimitMs, settleLimitMs, d.settleLimitMs)
        try put(.maxEvents, maxEvents, d.maxEvents)
        try put(.sendTimeoutMs, strategy.sendTimeoutMs, d.strategy.sendTimeoutMs)
        try put(.syncIntervalMs, strategy.syncIntervalMs, d.strategy.syncIntervalMs)
        try put(.saveDelayMinMs, strategy.saveDelayMinMs, d.strategy.saveDelayMinMs)
        try put(.saveDelayMaxMs, strategy.saveDelayMaxMs, d.strategy.saveDelayMaxMs)
        try put(.pushPullOrder, strategy.pushPullOrder, d.strategy.pushPullOrder)
        try put(.pushBatchSize, strategy.pushBatchSize, d.strategy.pushBatchSize)
        try put(.pullPageSize, strategy.pullPageSize, d.strategy.pullPageSize)
        try put(.pushPullIdempotentCreates, strategy.pushPullIdempotentCreates, d.strategy.pushPullIdempotentCreates)
        try put(.instantCombineTransacts, strategy.instantCombineTransacts, d.strategy.instantCombineTransacts)
        try put(.sharedDiffAtomicSaves, strategy.sharedDiffAtomicSaves, d.strategy.sharedDiffAtomicSaves)
        try put(.sharedDiffTraverseKnown, strategy.sharedDiffTraverseKnown, d.strategy.sharedDiffTraverseKnown)
    }
}

extension Schedule: Codable {
    enum K: String, CodingKey { case schema, options, initial, actions }

    /// Decodes the schema first (`"schema"`: absent for `Schema.default`, a known schema's name,
    /// or an embedded declaration), then every name in the rest of the file against it.
    public init(from decoder: Decoder) throws {
        let c = try decoder.container(keyedBy: K.self)
        let schema: Schema
        if !c.contains(.schema) {
            schema = .default
        } else if let name = try? c.decode(String.self, forKey: .schema) {
            guard let s = Schema.named(name) else {
                let known = [Schema.default.name] + Schema.known.map(\.name) + Schema.builtInNamed.map(\.name)
                throw DecodingError.dataCorruptedError(forKey: .schema, in: c,
                    debugDescription: "unknown schema '\(Schema.clip(name))'\(suggestion(name, known)); known: \(known.joined(separator: ", ")) (or embed the declaration as an object)")
            }
            schema = s
        } else {
            schema = try c.decode(SchemaDeclaration.self, forKey: .schema).schema
        }
        self.schema = schema
        (options, initial, actions) = try Schema.$describing.withValue(schema) {
            (try c.decodeIfPresent(SimulationOptions.self, forKey: .options) ?? SimulationOptions(),
             try c.decodeIfPresent([InitialEntity].self, forKey: .initial) ?? [],
             try c.decode([TimedAction].self, forKey: .actions))
        }
    }

    /// Writes the schema only when it is not `Schema.default` (embedded, so a file is
    /// self-contained), then the rest named by it.
    public func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        if schema != .default { try c.encode(SchemaDeclaration(schema), forKey: .schema) }
        try Schema.$describing.withValue(schema) {
            try c.encode(options, forKey: .options)
            try c.encode(initial, forKey: .initial)
            try c.encode(actions, forKey: .actions)
        }
    }
}

extension Schedule {
    /// A stable hash of the schedule's values: identifies a schedule across processes and
    /// machines (16 hex digits, as `run` prints it).
    ///
    /// Why not the JSON text: encoding, re-parsing and laying out a 3,000-action schedule as
    /// JSON cost as much as simulating it (20% of `run --actions 3000`), for one line of the
    /// summary. The small, open-ended parts (the schema when it is not the default, the options)
    /// still go in as their sorted-key JSON, so a new option can never be left out of the hash;
    /// the actions and initial data, which grow with the run, are hashed value by value
    /// (`Action.digest(into:)`: a tag per case, then every field, so the compiler asks for a
    /// line when a case is added).
    public var digest: String {
        var h = StableHasher()
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        if schema == .default { h.byte(0) } else {
            h.byte(1)
            h.combine((try? e.encode(SchemaDeclaration(schema))).map { String(decoding: $0, as: UTF8.self) } ?? "")
        }
        h.combine((try? e.encode(options)).map { String(decoding: $0, as: UTF8.self) } ?? "")
        h.combine(initial.count)
        for x in initial {
            h.combine(x.entity.raw); h.byte(x.namespace.raw)
            Self.digest(x.values, into: &h)
            h.combine(x.links.count)
            for l in x.links { h.byte(l.link.raw); h.combine(l.target.raw) }
        }
        h.combine(actions.count)
        for a in actions { h.combine(a.at); a.action.digest(into: &h) }
        return h.hex
    }

    static func digest(_ a: [FieldAssignment], into h: inout StableHasher) {
        h.combine(a.count)
        for x in a { h.byte(x.field.raw); x.value.stableHash(into: &h) }
    }
}

extension Action {
    /// This action's part of `Schedule.digest`: a tag per case, then every associated value.
    func digest(into h: inout StableHasher) {
        switch self {
        case .create(let c, let e, let ns, let a):
            h.byte(1); h.combine(c.index); h.combine(e.raw); h.byte(ns.raw); Schedule.digest(a, into: &h)
        case .update(let c, let e, let a): h.byte(2); h.combine(c.index); h.combine(e.raw); Schedule.digest(a, into: &h)
        case .delete(let c, let e): h.byte(3); h.combine(c.index); h.combine(e.raw)
        case .link(let c, let e, let l, let t): h.byte(4); h.combine(c.index); h.combine(e.raw); h.byte(l.raw); h.combine(t.raw)
        case .unlink(let c, let e, let l, let t): h.byte(5); h.combine(c.index); h.combine(e.raw); h.byte(l.raw); h.combine(t.raw)
        case .type(let c, let e, let f, let text, let every):
            h.byte(6); h.combine(c.index); h.combine(e.raw); h.byte(f.raw); h.combine(text); h.combine(every)
        case .serverCreate(let e, let ns, let a): h.byte(7); h.combine(e.raw); h.byte(ns.raw); Schedule.digest(a, into: &h)
        case .serverUpdate(let e, let a): h.byte(8); h.combine(e.raw); Schedule.digest(a, into: &h)
        case .serverDelete(let e): h.byte(9); h.combine(e.raw)
        case .subscribe(let c, let s, let q): h.byte(10); h.combine(c.index); h.combine(s.raw); q.stableHash(into: &h)
        case .unsubscribe(let c, let s): h.byte(11); h.combine(c.index); h.combine(s.raw)
        case .queryOnce(let c, let q): h.byte(12); h.combine(c.index); q.stableHash(into: &h)
        case .goOffline(let c): h.byte(13); h.combine(c.index)
        case .goOnline(let c): h.byte(14); h.combine(c.index)
        case .serverUnreachable(let c): h.byte(15); h.combine(c.index)
        case .serverReachable(let c): h.byte(16); h.combine(c.index)
        case .restart(let c): h.byte(17); h.combine(c.index)
        case .forceSync(let c, let choice): h.byte(18); h.combine(c.index); h.combine(choice.rawValue)
        case .crash(let c, let point): h.byte(19); h.combine(c.index); h.combine(point.rawValue)
        case .syncNow(let c): h.byte(20); h.combine(c.index)
        case .dropOldestWrite(let c): h.byte(21); h.combine(c.index)
        case .bulkCreate(let c, let e, let n, let ns, let a):
            h.byte(22); h.combine(c.index); h.combine(e.raw); h.combine(n); h.byte(ns.raw); Schedule.digest(a, into: &h)
        // Tags 40… for tenants (away from the next free ones, which parallel work may take).
        case .switchTenant(let c, let t): h.byte(40); h.combine(c.index); h.byte(t.raw)
        case .logout(let c): h.byte(41); h.combine(c.index)
        }
    }
}

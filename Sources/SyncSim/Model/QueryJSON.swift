import Foundation

/// The JSON form of a query's `where`, `limit` and `include`, shared by scenario files
/// (`Codable`) and histories (`JSONNode`), so both read and write the same shapes with the same
/// checks and messages:
///
///     "where": {"done": false}                                   today's one equality (`filter`)
///     "where": {"likes": {"$gt": 3}, "content": {"$in": ["a", "b"]}}   several keys: and
///     "where": {"or": [{"likes": {"$lte": 0}}, {"done": true}]}        also "and"
///     "limit": 2                                                  the first 2 roots in id order
///     "include": "author"                                         one level (today's form)
///     "include": {"author": {"posts": {"comments": {"author": {}}}}}   a tree, each key a link
///
/// Operators: `$eq`, `$ne`, `$gt`, `$gte`, `$lt`, `$lte` (the ordering ones on ints and strings
/// only) and `$in` (a list of 1…`QueryLimits.inValues` values). Every part is range-checked
/// against `QueryLimits`; an error names the path inside the query (`where.or[1].likes.$gt`).
struct QueryJSON: Decodable {
    indirect enum Value {
        case string(String)
        case int(Int)
        case bool(Bool)
        case array([QueryJSON])
        case object([(key: String, value: QueryJSON)])
        case other(String)
    }
    var value: Value
    /// The column in a history line (0 when read through `Codable`).
    var column: Int = 0

    init(_ value: Value, column: Int = 0) {
        self.value = value
        self.column = column
    }

    init(from decoder: Decoder) throws {
        if let c = try? decoder.singleValueContainer() {
            if c.decodeNil() { value = .other("null"); return }
            if let b = try? c.decode(Bool.self) { value = .bool(b); return }
            if let i = try? c.decode(Int.self) { value = .int(i); return }
            if let s = try? c.decode(String.self) { value = .string(s); return }
            if let a = try? c.decode([QueryJSON].self) { value = .array(a); return }
        }
        if let k = try? decoder.container(keyedBy: AnyKey.self) {
            var ms: [(key: String, value: QueryJSON)] = []
            for key in k.allKeys { ms.append((key.stringValue, try k.decode(QueryJSON.self, forKey: key))) }
            value = .object(ms)
            return
        }
        value = .other("a number that is not a whole number")
    }

    init(_ n: JSONNode) {
        column = n.location.column
        switch n.value {
        case .string(let s): value = .string(s)
        case .bool(let b): value = .bool(b)
        case .number(let t): value = Int(t).map(Value.int) ?? .other("the number \(JSONText.clipped(t, 30))")
        case .null: value = .other("null")
        case .array(let xs): value = .array(xs.map(QueryJSON.init))
        case .object(let ms): value = .object(ms.map { ($0.key, QueryJSON($0.value)) })
        }
    }

    /// A failure inside a query part: the path below the query's key and the message.
    struct Failure: Error {
        var path: [String]
        var column: Int
        var message: String
        var pathText: String {
            var s = ""
            for p in path { s += p.hasPrefix("[") ? p : (s.isEmpty ? p : "." + p) }
            return s
        }
        var codingKeys: [AnyKey] {
            path.map { p in
                if p.hasPrefix("["), let i = Int(p.dropFirst().dropLast()) { var k = AnyKey(p); k.intValue = i; return k }
                return AnyKey(p)
            }
        }
    }

    var typeName: String {
        switch value {
        case .string: return "a string"
        case .int: return "an integer"
        case .bool: return "a boolean"
        case .array: return "an array"
        case .object: return "an object"
        case .other(let s): return s
        }
    }

    // MARK: - Reading

    /// A `where` object: one plain equality is today's `filter`; anything else a `condition`.
    static func readWhere(_ j: QueryJSON, _ ns: NamespaceID, _ schema: Schema) throws -> (FieldAssignment?, QueryCondition?) {
        guard case .object(let ms) = j.value, !ms.isEmpty else {
            throw Failure(path: ["where"], column: j.column, message: "expected an object of conditions, e.g. {\"done\": false} or {\"likes\": {\"$gt\": 3}}, got \(j.typeName)")
        }
        if ms.count == 1, let f = schema.field(named: ms[0].key, in: ns) {
            switch ms[0].value.value {
            case .string, .int, .bool:
                return (FieldAssignment(f, try scalar(ms[0].value, kind: schema.kind(of: f), ["where", ms[0].key])), nil)
            default: break
            }
        }
        let c = try object(ms, column: j.column, ns, schema, path: ["where"], depth: 1)
        guard c.size <= QueryLimits.conditionNodes else {
            throw Failure(path: ["where"], column: j.column, message: "at most \(QueryLimits.conditionNodes) conditions in one where, got \(c.size)")
        }
        return (nil, c)
    }

    static func object(_ ms: [(key: String, value: QueryJSON)], column: Int, _ ns: NamespaceID, _ schema: Schema,
                       path: [String], depth: Int) throws -> QueryCondition {
        guard depth <= QueryLimits.conditionDepth else {
            throw Failure(path: path, column: column, message: "and/or nested deeper than \(QueryLimits.conditionDepth) levels")
        }
        guard !ms.isEmpty else { throw Failure(path: path, column: column, message: "expected at least one condition, got {}") }
        var terms: [QueryCondition] = []
        for m in ms.sorted(by: { $0.key < $1.key }) {
            terms.append(try member(m.key, m.value, ns, schema, path: path + [m.key], depth: depth))
        }
        return terms.count == 1 ? terms[0] : .and(terms)
    }

    static func member(_ key: String, _ j: QueryJSON, _ ns: NamespaceID, _ schema: Schema, path: [String], depth: Int) throws -> QueryCondition {
        if key == "and" || key == "or" {
            guard case .array(let xs) = j.value, !xs.isEmpty, xs.count <= QueryLimits.conditionNodes else {
                throw Failure(path: path, column: j.column, message: "expected an array of 1…\(QueryLimits.conditionNodes) condition objects, got \(j.typeName)")
            }
            var cs: [QueryCondition] = []
            for (i, x) in xs.enumerated() {
                guard case .object(let ms) = x.value else {
                    throw Failure(path: path + ["[\(i)]"], column: x.column, message: "expected a condition object, got \(x.typeName)")
                }
                cs.append(try object(ms, column: x.column, ns, schema, path: path + ["[\(i)]"], depth: depth + 1))
            }
            return key == "and" ? .and(cs) : .or(cs)
        }
        guard let f = schema.field(named: key, in: ns) else {
            let names = schema.fields(of: ns).map { schema.name(of: $0) } + ["and", "or"]
            throw Failure(path: path, column: j.column, message: "'\(JSONText.clipped(key))' is not a field of \(schema.name(of: ns))\(suggestion(key, names)); expected one of: \(names.joined(separator: ", "))")
        }
        let kind = schema.kind(of: f)
        switch j.value {
        case .string, .int, .bool:
            return .compare(f, .eq, try scalar(j, kind: kind, path))
        case .object(let ms) where ms.count == 1:
            let op = ms[0].key, v = ms[0].value
            let p = path + [op]
            if op == "$in" {
                guard case .array(let xs) = v.value, !xs.isEmpty, xs.count <= QueryLimits.inValues else {
                    throw Failure(path: p, column: v.column, message: "expected an array of 1…\(QueryLimits.inValues) \(kind) values, got \(v.typeName)")
                }
                return .isIn(f, try xs.enumerated().map { try scalar($0.element, kind: kind, p + ["[\($0.offset)]"]) })
            }
            guard let c = QueryCondition.Comparison(rawValue: op) else {
                let ops = QueryCondition.Comparison.allCases.map(\.rawValue) + ["$in"]
                throw Failure(path: p, column: v.column, message: "unknown operator '\(JSONText.clipped(op))'\(suggestion(op, ops)); expected one of: \(ops.joined(separator: ", "))")
            }
            if c.isOrdering && kind == .bool {
                throw Failure(path: p, column: v.column, message: "\(op) compares ints or strings; \(schema.name(of: f)) is a bool (use $eq, $ne or $in)")
            }
            return .compare(f, c, try scalar(v, kind: kind, p))
        default:
            throw Failure(path: path, column: j.column, message: "expected a \(kind) value or one operator object such as {\"$gt\": …}, got \(j.typeName)\(j.isMultiKey ? " with several operators (use and)" : "")")
        }
    }

    var isMultiKey: Bool { if case .object(let ms) = value { return ms.count > 1 } else { return false } }

    static func scalar(_ j: QueryJSON, kind: FieldKind, _ path: [String]) throws -> FieldValue {
        switch (j.value, kind) {
        case (.string(let s), .string):
            guard s.utf8.count <= ScheduleLimits.maxStringBytes else {
                throw Failure(path: path, column: j.column, message: "a string of at most \(ScheduleLimits.maxStringBytes) bytes, got \(s.utf8.count)")
            }
            return .string(s)
        case (.int(let i), .int):
            guard ScheduleLimits.intValues.contains(i) else {
                throw Failure(path: path, column: j.column, message: ScheduleLimits.outOfRange("an integer", i, ScheduleLimits.intValues))
            }
            return .int(i)
        case (.bool(let b), .bool): return .bool(b)
        default: throw Failure(path: path, column: j.column, message: "expected a \(kind) value, got \(j.typeName)")
        }
    }

    static func readLimit(_ j: QueryJSON) throws -> Int {
        guard case .int(let n) = j.value, QueryLimits.limits.contains(n) else {
            let got: String
            if case .int(let n) = j.value { got = String(n) } else { got = j.typeName }
            throw Failure(path: ["limit"], column: j.column, message: "expected a whole number in \(QueryLimits.limits.lowerBound)…\(QueryLimits.limits.upperBound), got \(got)")
        }
        return n
    }

    /// `"author"` (one level) or `{"author": {"posts": {}}}` (a tree).
    static func readIncludes(_ j: QueryJSON, _ ns: NamespaceID, _ schema: Schema) throws -> [Query.IncludeNode] {
        var count = 0
        if case .string(let s) = j.value {
            return [Query.IncludeNode(try link(s, from: ns, schema, ["include"], j.column))]
        }
        let nodes = try tree(j, ns, schema, path: ["include"], depth: 1, count: &count)
        return nodes
    }

    static func tree(_ j: QueryJSON, _ ns: NamespaceID, _ schema: Schema, path: [String], depth: Int, count: inout Int) throws -> [Query.IncludeNode] {
        guard case .object(let ms) = j.value else {
            throw Failure(path: path, column: j.column, message: "expected a link name or an object of links, e.g. {\"author\": {\"posts\": {}}}, got \(j.typeName)")
        }
        if ms.isEmpty && depth == 1 { throw Failure(path: path, column: j.column, message: "expected at least one link, got {}") }
        if !ms.isEmpty && depth > QueryLimits.includeDepth {
            throw Failure(path: path, column: j.column, message: "includes nested deeper than \(QueryLimits.includeDepth) levels")
        }
        var out: [Query.IncludeNode] = []
        for m in ms {
            count += 1
            guard count <= QueryLimits.includeNodes else {
                throw Failure(path: path + [m.key], column: m.value.column, message: "at most \(QueryLimits.includeNodes) includes in one query")
            }
            let l = try link(m.key, from: ns, schema, path + [m.key], m.value.column)
            var node = Query.IncludeNode(l)
            node.children = try tree(m.value, node.reached(from: ns, in: schema)!, schema, path: path + [m.key], depth: depth + 1, count: &count)
            out.append(node)
        }
        return out.sorted(by: Query.IncludeNode.canonicalOrder)
    }

    static func link(_ s: String, from ns: NamespaceID, _ schema: Schema, _ path: [String], _ column: Int) throws -> Query.Include {
        if let l = schema.link(named: s), schema.source(of: l) == ns { return .forward(l) }
        if let l = schema.link(reverseNamed: s, on: ns) { return .reverse(l) }
        let valid = schema.links(of: ns).map { schema.name(of: $0) } + schema.incomingLinks(of: ns).map { schema.reverseName(of: $0) }
        throw Failure(path: path, column: column, message: "\(schema.name(of: ns)) cannot include '\(JSONText.clipped(s))'\(suggestion(s, valid)); expected one of: \(valid.isEmpty ? "(none)" : valid.joined(separator: ", "))")
    }

    // MARK: - Writing

    /// The `where` object of `q`, or nil without one.
    static func whereValue(_ q: Query, _ schema: Schema) -> QueryJSON? {
        func scalar(_ v: FieldValue) -> QueryJSON {
            switch v {
            case .string(let s): return QueryJSON(.string(s))
            case .int(let i): return QueryJSON(.int(i))
            case .bool(let b): return QueryJSON(.bool(b))
            }
        }
        func cond(_ c: QueryCondition) -> QueryJSON {
            switch c {
            case .compare(let f, let op, let v):
                return QueryJSON(.object([(schema.name(of: f), QueryJSON(.object([(op.rawValue, scalar(v))])))]))
            case .isIn(let f, let vs):
                return QueryJSON(.object([(schema.name(of: f), QueryJSON(.object([("$in", QueryJSON(.array(vs.map(scalar))))])))]))
            case .and(let cs): return QueryJSON(.object([("and", QueryJSON(.array(cs.map(cond))))]))
            case .or(let cs): return QueryJSON(.object([("or", QueryJSON(.array(cs.map(cond))))]))
            }
        }
        let plain = q.filter.map { QueryJSON(.object([(schema.name(of: $0.field), scalar($0.value))])) }
        switch (plain, q.condition) {
        case (nil, nil): return nil
        case (let p?, nil): return p
        case (nil, let c?): return cond(c)
        case (let p?, let c?): return QueryJSON(.object([("and", QueryJSON(.array([p, cond(c)])))]))
        }
    }

    /// `"author"` for one plain level, else the tree object; nil without includes.
    static func includeValue(_ q: Query, _ schema: Schema) -> QueryJSON? {
        func name(_ n: Query.IncludeNode) -> String {
            switch n.link { case .forward(let l): return schema.name(of: l); case .reverse(let l): return schema.reverseName(of: l) }
        }
        func obj(_ ns: [Query.IncludeNode]) -> QueryJSON { QueryJSON(.object(ns.map { (name($0), obj($0.children)) })) }
        if q.includes.isEmpty { return nil }
        if q.includes.count == 1 && q.includes[0].children.isEmpty { return QueryJSON(.string(name(q.includes[0]))) }
        return obj(q.includes)
    }

    /// Compact JSON text (keys in the order held).
    func write(into out: inout String) {
        switch value {
        case .string(let s): HistoryCodec.string(s, into: &out)
        case .int(let i): out.append(String(i))
        case .bool(let b): out.append(b ? "true" : "false")
        case .other: out.append("null")
        case .array(let xs):
            out.append("[")
            for (i, x) in xs.enumerated() { if i > 0 { out.append(",") }; x.write(into: &out) }
            out.append("]")
        case .object(let ms):
            out.append("{")
            for (i, m) in ms.enumerated() {
                if i > 0 { out.append(",") }
                HistoryCodec.string(m.key, into: &out); out.append(":"); m.value.write(into: &out)
            }
            out.append("}")
        }
    }
}

extension QueryJSON: Encodable {
    func encode(to encoder: Encoder) throws {
        switch value {
        case .string(let s): var c = encoder.singleValueContainer(); try c.encode(s)
        case .int(let i): var c = encoder.singleValueContainer(); try c.encode(i)
        case .bool(let b): var c = encoder.singleValueContainer(); try c.encode(b)
        case .other: var c = encoder.singleValueContainer(); try c.encodeNil()
        case .array(let xs): var c = encoder.unkeyedContainer(); for x in xs { try c.encode(x) }
        case .object(let ms): var c = encoder.container(keyedBy: AnyKey.self); for m in ms { try c.encode(m.value, forKey: AnyKey(m.key)) }
        }
    }
}

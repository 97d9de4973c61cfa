/// The JSON forms of the model values a history line carries — operations, records, queries,
/// results, rejection reasons — written and read by hand (see `HistoryFields` for why), named
/// by the history's schema exactly as scenario files name them:
///
/// - a value: `"Te"`, `3`, `true` (the field's type);
/// - a record: `{"entity": 3, "namespace": "todos", "set": {"title": "Te"}, "links": {"author": 2, "tags": [4, 5]}}`;
/// - an operation: `{"op": "create"|"update", "entity": 3, "namespace": "todos", "set": {…}}`,
///   `{"op": "delete", "entity": 3, "namespace": "todos"}`, `{"op": "link"|"unlink", "entity": 3, "link": "author", "target": 2}`;
/// - a query: `{"namespace": "posts", "where": {"published": true}, "include": "author"}`;
/// - a result: `{"roots": [3, 4], "records": [record, …]}`.
enum HistoryCodec {
    // MARK: - Writing

    static func string(_ s: String, into out: inout String) {
        out.append("\"")
        for u in s.unicodeScalars {
            switch u {
            case "\"": out.append("\\\"")
            case "\\": out.append("\\\\")
            case "\n": out.append("\\n")
            case "\r": out.append("\\r")
            case "\t": out.append("\\t")
            default:
                if u.value < 0x20 || u.value == 0x2028 || u.value == 0x2029 {
                    let h = String(u.value, radix: 16)
                    out.append("\\u" + String(repeating: "0", count: 4 - h.count) + h)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        out.append("\"")
    }

    static func quoted(_ s: String) -> String { var o = ""; string(s, into: &o); return o }

    static func value(_ v: FieldValue, into out: inout String) {
        switch v {
        case .string(let s): string(s, into: &out)
        case .int(let i): out.append(String(i))
        case .bool(let b): out.append(b ? "true" : "false")
        }
    }

    static func assignments(_ a: [FieldAssignment], _ schema: Schema, into out: inout String) {
        out.append("{")
        for (i, x) in a.enumerated() {
            if i > 0 { out.append(",") }
            string(schema.name(of: x.field), into: &out)
            out.append(":")
            value(x.value, into: &out)
        }
        out.append("}")
    }

    static func ids<T>(_ xs: [T], _ raw: (T) -> UInt32) -> String {
        "[" + xs.map { String(raw($0)) }.joined(separator: ",") + "]"
    }

    static func op(_ op: Op, _ schema: Schema, into out: inout String) {
        switch op {
        case .create(let e, let ns, let a), .update(let e, let ns, let a):
            out.append(op.isCreate ? "{\"op\":\"create\",\"entity\":" : "{\"op\":\"update\",\"entity\":")
            out.append(String(e.raw))
            out.append(",\"namespace\":")
            string(schema.name(of: ns), into: &out)
            out.append(",\"set\":")
            assignments(a, schema, into: &out)
            out.append("}")
        case .delete(let e, let ns):
            out.append("{\"op\":\"delete\",\"entity\":\(e.raw),\"namespace\":")
            string(schema.name(of: ns), into: &out)
            out.append("}")
        case .link(let e, let l, let t), .unlink(let e, let l, let t):
            if case .link = op { out.append("{\"op\":\"link\",\"entity\":") } else { out.append("{\"op\":\"unlink\",\"entity\":") }
            out.append("\(e.raw),\"link\":")
            string(schema.name(of: l), into: &out)
            out.append(",\"target\":\(t.raw)}")
        }
    }

    static func ops(_ ops: [Op], _ schema: Schema, into out: inout String) {
        out.append("[")
        for (i, o) in ops.enumerated() {
            if i > 0 { out.append(",") }
            op(o, schema, into: &out)
        }
        out.append("]")
    }

    static func record(_ id: EntityID, _ r: EntityRecord, _ schema: Schema, into out: inout String) {
        out.append("{\"entity\":\(id.raw),\"namespace\":")
        string(schema.name(of: r.namespace), into: &out)
        out.append(",\"set\":{")
        var first = true
        for f in schema.fields(of: r.namespace) {
            guard let v = r[f] else { continue }
            if !first { out.append(",") }
            first = false
            string(schema.name(of: f), into: &out)
            out.append(":")
            value(v, into: &out)
        }
        out.append("}")
        var links: [String] = []
        for l in schema.links(of: r.namespace) {
            let ts = r.targets(l)
            if schema.isMany(l) {
                links.append(quoted(schema.name(of: l)) + ":" + ids(ts, \.raw))
            } else if let t = ts.first {
                links.append(quoted(schema.name(of: l)) + ":\(t.raw)")
            }
        }
        if !links.isEmpty { out.append(",\"links\":{" + links.joined(separator: ",") + "}") }
        out.append("}")
    }

    static func records(_ rs: [(EntityID, EntityRecord)], _ schema: Schema, into out: inout String) {
        out.append("[")
        for (i, r) in rs.enumerated() {
            if i > 0 { out.append(",") }
            record(r.0, r.1, schema, into: &out)
        }
        out.append("]")
    }

    static func query(_ q: Query, _ schema: Schema, into out: inout String) {
        out.append("{\"namespace\":")
        string(schema.name(of: q.namespace), into: &out)
        if let w = QueryJSON.whereValue(q, schema) { out.append(",\"where\":"); w.write(into: &out) }
        if let l = q.limit { out.append(",\"limit\":" + String(l)) }
        if let i = QueryJSON.includeValue(q, schema) { out.append(",\"include\":"); i.write(into: &out) }
        out.append("}")
    }

    static func result(_ r: QueryResult?, _ schema: Schema, into out: inout String) {
        guard let r else { out.append("null"); return }
        out.append("{\"roots\":" + ids(r.roots, \.raw) + ",\"records\":")
        records(r.entries.map { ($0.id, $0.record) }, schema, into: &out)
        out.append("}")
    }

    /// `"timeout"`, `"queueFull"`, `"conflictDiscarded"`, `"serverError"`, `"invalid"` (the last
    /// two with a `detail`).
    static func reason(_ r: RejectReason) -> (String, String?) {
        switch r {
        case .timeout: return ("timeout", nil)
        case .queueFull: return ("queueFull", nil)
        case .conflictDiscarded: return ("conflictDiscarded", nil)
        case .serverError(let s): return ("serverError", s)
        case .invalid(let s): return ("invalid", s)
        }
    }

    // MARK: - Reading

    typealias F = HistoryFields

    static func namespace(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> NamespaceID {
        let s = try F.string(n, path())
        guard let ns = schema.namespace(named: s) else {
            throw F.fail(n, path(), "unknown namespace '\(JSONText.clipped(s))'\(suggestion(s, schema.namespaceNames)); expected one of: \(schema.namespaceNames.joined(separator: ", "))")
        }
        return ns
    }

    static func link(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> LinkID {
        let s = try F.string(n, path())
        guard let l = schema.link(named: s) else {
            throw F.fail(n, path(), "unknown link '\(JSONText.clipped(s))'\(suggestion(s, schema.allLinkNames)); expected one of: \(schema.allLinkNames.joined(separator: ", ").ifEmptyNone)")
        }
        return l
    }

    static func value(_ n: JSONNode, _ path: @autoclosure () -> String, kind: FieldKind) throws -> FieldValue {
        switch (n.value, kind) {
        case (.string, .string): return .string(try F.string(n, path()))
        case (.number, .int):
            let r = ScheduleLimits.intValues
            return .int(Int(try F.int(n, path(), Int64(r.lowerBound)...Int64(r.upperBound))))
        case (.bool(let b), .bool): return .bool(b)
        default: throw F.fail(n, path(), "expected a \(kind) value")
        }
    }

    /// `{"title": "Te", "done": true}`: fields of `ns`, each of its declared type, in the file's order.
    static func assignments(_ n: JSONNode, _ path: @autoclosure () -> String, _ ns: NamespaceID, _ schema: Schema) throws -> [FieldAssignment] {
        guard case .object(let ms) = n.value else { throw F.fail(n, path(), "expected an object of field values") }
        var out: [FieldAssignment] = []
        for m in ms {
            guard let f = schema.field(named: m.key, in: ns) else {
                let names = schema.fields(of: ns).map { schema.name(of: $0) }
                throw HistoryFields.Failure(column: m.keyLocation.column, path: path() + "." + JSONText.clipped(m.key, 40),
                                            message: "'\(JSONText.clipped(m.key))' is not a field of \(schema.name(of: ns))\(suggestion(m.key, names)); expected one of: \(names.joined(separator: ", ").ifEmptyNone)")
            }
            out.append(FieldAssignment(f, try value(m.value, path() + "." + m.key, kind: schema.kind(of: f))))
        }
        return out
    }

    static func op(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> Op {
        do { return try op(n, schema) } catch let f as F.Failure { throw f.under(path()) }
    }

    static func op(_ n: JSONNode, _ schema: Schema) throws -> Op {
        let o = try F(n, path: "")
        let kind = try o.string("op")
        switch kind {
        case "create", "update":
            try o.only(["op", "entity", "namespace", "set"])
            let e = try o.entity("entity")
            let ns = try namespace(try o.required("namespace"), o.sub("namespace"), schema)
            let a = try assignments(try o.required("set"), o.sub("set"), ns, schema)
            return kind == "create" ? .create(e, ns, a) : .update(e, ns, a)
        case "delete":
            try o.only(["op", "entity", "namespace"])
            return .delete(try o.entity("entity"), try namespace(try o.required("namespace"), o.sub("namespace"), schema))
        case "link", "unlink":
            try o.only(["op", "entity", "link", "target"])
            let e = try o.entity("entity")
            let l = try link(try o.required("link"), o.sub("link"), schema)
            let t = try o.entity("target")
            return kind == "link" ? .link(e, l, t) : .unlink(e, l, t)
        default:
            throw o.fail("op", "unknown operation '\(JSONText.clipped(kind))'\(suggestion(kind, ["create", "update", "delete", "link", "unlink"])); expected one of: create, update, delete, link, unlink")
        }
    }

    static func ops(_ n: JSONNode, _ path: String, _ schema: Schema) throws -> [Op] {
        try F.array(n, path).enumerated().map { try op($0.element, path + "[\($0.offset)]", schema) }
    }

    static func record(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> (EntityID, EntityRecord) {
        do { return try record(n, schema) } catch let f as F.Failure { throw f.under(path()) }
    }

    static func record(_ n: JSONNode, _ schema: Schema) throws -> (EntityID, EntityRecord) {
        let o = try F(n, path: "")
        try o.only(["entity", "namespace", "set", "links"])
        let e = try o.entity("entity")
        let ns = try namespace(try o.required("namespace"), o.sub("namespace"), schema)
        var r = EntityRecord(namespace: ns, schema: schema)
        if let s = o.node("set") {
            for x in try assignments(s, o.sub("set"), ns, schema) { r[x.field] = x.value }
        }
        if let ln = o.node("links") {
            guard case .object(let ms) = ln.value else { throw F.fail(ln, o.sub("links"), "expected an object of links") }
            for m in ms {
                func p() -> String { o.sub("links") + "." + JSONText.clipped(m.key, 40) }
                guard let l = schema.link(named: m.key), schema.source(of: l) == ns else {
                    let names = schema.links(of: ns).map { schema.name(of: $0) }
                    throw HistoryFields.Failure(column: m.keyLocation.column, path: p(),
                                                message: "'\(JSONText.clipped(m.key))' is not a link of \(schema.name(of: ns)); expected one of: \(names.joined(separator: ", ").ifEmptyNone)")
                }
                if schema.isMany(l) {
                    for (i, t) in try F.array(m.value, p()).enumerated() { r.setLink(l, to: try F.entity(t, p() + "[\(i)]"), many: true) }
                } else if case .null = m.value.value {
                    continue
                } else {
                    r.setLink(l, to: try F.entity(m.value, p()), many: false)
                }
            }
        }
        return (e, r)
    }

    static func records(_ n: JSONNode, _ path: String, _ schema: Schema) throws -> [(EntityID, EntityRecord)] {
        try F.array(n, path).enumerated().map { try record($0.element, path + "[\($0.offset)]", schema) }
    }

    static func query(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> Query {
        do { return try query(n, schema) } catch let f as F.Failure { throw f.under(path()) }
    }

    static func query(_ n: JSONNode, _ schema: Schema) throws -> Query {
        let o = try F(n, path: "")
        try o.only(["namespace", "where", "limit", "include"])
        let ns = try namespace(try o.required("namespace"), o.sub("namespace"), schema)
        var q = Query(ns)
        do {
            if let w = o.node("where") { (q.filter, q.condition) = try QueryJSON.readWhere(QueryJSON(w), ns, schema) }
            if let l = o.node("limit") { q.limit = try QueryJSON.readLimit(QueryJSON(l)) }
            if let i = o.node("include") { q.includes = try QueryJSON.readIncludes(QueryJSON(i), ns, schema) }
        } catch let f as QueryJSON.Failure {
            throw HistoryFields.Failure(column: f.column, path: f.pathText, message: f.message)
        }
        return q
    }

    /// A result, or nil for JSON `null` (the subscription shows nothing).
    static func result(_ n: JSONNode, _ path: @autoclosure () -> String, _ schema: Schema) throws -> QueryResult? {
        do { return try result(n, schema) } catch let f as F.Failure { throw f.under(path()) }
    }

    static func result(_ n: JSONNode, _ schema: Schema) throws -> QueryResult? {
        if case .null = n.value { return nil }
        let o = try F(n, path: "")
        try o.only(["roots", "records"])
        var roots = try F.array(try o.required("roots"), o.sub("roots")).enumerated().map { try F.entity($0.element, o.sub("roots") + "[\($0.offset)]") }
        var recs = try records(try o.required("records"), o.sub("records"), schema)
        roots.sort()
        // Entries are kept ascending (lookups are binary searches); a repeated id is ambiguous.
        recs.sort { $0.0 < $1.0 }
        for i in recs.indices.dropFirst() where recs[i].0 == recs[i - 1].0 {
            throw o.fail("records", "entity \(recs[i].0.raw) appears twice")
        }
        for i in roots.indices.dropFirst() where roots[i] == roots[i - 1] {
            throw o.fail("roots", "entity \(roots[i].raw) appears twice")
        }
        return QueryResult(roots: roots, entries: recs.map { QueryResult.Entry(id: $0.0, record: $0.1) })
    }

    static func reason(_ o: HistoryFields) throws -> RejectReason {
        let r = try o.string("reason")
        let detail = try o.optionalString("detail") ?? ""
        switch r {
        case "timeout": return .timeout
        case "queueFull": return .queueFull
        case "conflictDiscarded": return .conflictDiscarded
        case "serverError": return .serverError(detail)
        case "invalid": return .invalid(detail)
        default:
            let all = ["timeout", "queueFull", "conflictDiscarded", "serverError", "invalid"]
            throw o.fail("reason", "unknown reason '\(JSONText.clipped(r))'\(suggestion(r, all)); expected one of: \(all.joined(separator: ", "))")
        }
    }

    static func choice(_ o: HistoryFields) throws -> ConflictChoice {
        let s = try o.string("choice")
        guard let c = ConflictChoice(rawValue: s) else {
            throw o.fail("choice", "unknown choice '\(JSONText.clipped(s))'; expected one of: \(ConflictChoice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return c
    }
}

extension Op {
    var isCreate: Bool { if case .create = self { return true } else { return false } }
}

extension String {
    /// "(none)" for an empty list in a message.
    var ifEmptyNone: String { isEmpty ? "(none)" : self }
}

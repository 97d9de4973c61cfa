/// The checks a query built in Swift (not read from JSON) must pass before a run: every part
/// names the schema's fields and links, has values of the right kind and stays inside
/// `QueryLimits`. The JSON readers (`QueryJSON`) apply the same bounds while reading.
enum QueryChecks {
    static func check(_ q: Query, _ sc: Schema, path: String) throws {
        if let c = q.condition {
            guard c.size <= QueryLimits.conditionNodes else {
                throw ScheduleError(path: "\(path).where", "at most \(QueryLimits.conditionNodes) conditions nested at most \(QueryLimits.conditionDepth) levels")
            }
            try check(c, q.namespace, sc, path: "\(path).where")
        }
        if let n = q.limit, !QueryLimits.limits.contains(n) {
            throw ScheduleError(path: "\(path).limit", ScheduleLimits.outOfRange("a limit", n, QueryLimits.limits))
        }
        let nodes = q.includes.reduce(0) { $0 + $1.count }
        guard q.includeDepth <= QueryLimits.includeDepth, nodes <= QueryLimits.includeNodes else {
            throw ScheduleError(path: "\(path).include", "at most \(QueryLimits.includeNodes) includes nested at most \(QueryLimits.includeDepth) levels, got \(nodes) in \(q.includeDepth)")
        }
        func walk(_ n: Query.IncludeNode, from ns: NamespaceID) throws {
            guard let to = n.reached(from: ns, in: sc) else {
                switch n.link {
                case .forward(let l): throw ScheduleError(path: "\(path).include", "\(sc.name(of: ns)) has no link \(sc.name(of: l))")
                case .reverse(let l): throw ScheduleError(path: "\(path).include", "\(sc.name(of: ns)) has no reverse link \(sc.reverseName(of: l))")
                }
            }
            for c in n.children { try walk(c, from: to) }
        }
        for n in q.includes { try walk(n, from: q.namespace) }
    }

    static func check(_ c: QueryCondition, _ ns: NamespaceID, _ sc: Schema, path: String) throws {
        func field(_ f: FieldID) throws {
            guard sc.contains(f), sc.namespace(of: f) == ns else {
                throw ScheduleError(path: path, "\(sc.name(of: f)) is not a field of \(sc.name(of: ns))")
            }
        }
        func value(_ f: FieldID, _ v: FieldValue) throws {
            guard v.kind == sc.kind(of: f) else { throw ScheduleError(path: path, "wrong value type for \(sc.name(of: f)): expected \(sc.kind(of: f)), got \(v)") }
            switch v {
            case .string(let s) where s.utf8.count > ScheduleLimits.maxStringBytes:
                throw ScheduleError(path: path, "a string of at most \(ScheduleLimits.maxStringBytes) bytes, got \(s.utf8.count)")
            case .int(let i) where !ScheduleLimits.intValues.contains(i):
                throw ScheduleError(path: path, ScheduleLimits.outOfRange("an integer", i, ScheduleLimits.intValues))
            default: break
            }
        }
        switch c {
        case .compare(let f, let op, let v):
            try field(f)
            try value(f, v)
            if op.isOrdering && sc.kind(of: f) == .bool { throw ScheduleError(path: path, "\(op.rawValue) compares ints or strings; \(sc.name(of: f)) is a bool") }
        case .isIn(let f, let vs):
            try field(f)
            guard (1...QueryLimits.inValues).contains(vs.count) else { throw ScheduleError(path: path, "$in takes 1…\(QueryLimits.inValues) values, got \(vs.count)") }
            for v in vs { try value(f, v) }
        case .and(let cs), .or(let cs):
            guard !cs.isEmpty else { throw ScheduleError(path: path, "and/or needs at least one condition") }
            for x in cs { try check(x, ns, sc, path: path) }
        }
    }
}

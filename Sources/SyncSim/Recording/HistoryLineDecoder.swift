/// Decodes a history line straight from its bytes into a `HistoryEvent`: one pass, no JSON tree,
/// no `String` for keys or names, no copy of the line.
///
/// Why: checking a million-event history spent ~80% of its time building a generic JSON tree
/// per line (`JSONReader`) and then walking it (`HistoryFields`, `HistoryCodec`). This decoder
/// reads the keys it expects directly into the history's values.
///
/// **It never reports an error.** It accepts a line only when it is sure the exact path would
/// accept it with the same values: strict RFC 8259 syntax, no duplicate keys, every key known
/// and of its type, every number a whole number in its range, every name in the schema. On any
/// doubt — a syntax error, an escape or non-ASCII byte in a key, a fraction, a kind it does not
/// handle — it throws `Doubt`, and the caller judges the line with the exact reader, which
/// produces the precise `line:column: path: message` (or accepts what this was unsure of).
struct HistoryLineDecoder {
    /// "Ask the exact reader": not an error of the line, only of this decoder's confidence.
    struct Doubt: Error {}

    let schema: Schema
    let clients: Int
    /// False when a schema name is not plain ASCII: names are matched byte for byte here, while
    /// `String` equality is Unicode-canonical, so such schemas always take the exact path.
    let enabled: Bool
    let nsNames: [[UInt8]]
    let fieldNames: [[UInt8]]
    let linkNames: [[UInt8]]

    init(schema: Schema, clients: Int) {
        self.schema = schema
        self.clients = clients
        nsNames = schema.namespaceNames.map { Array($0.utf8) }
        fieldNames = schema.allFieldNames.map { Array($0.utf8) }
        linkNames = schema.allLinkNames.map { Array($0.utf8) }
        enabled = (nsNames + fieldNames + linkNames).allSatisfy { $0.allSatisfy { $0 < 0x80 } }
            && clients <= 26
    }

    /// The event on `line` (one line, without its newline).
    /// - Throws: `Doubt` when the exact path must judge the line.
    func decode(_ line: UnsafeBufferPointer<UInt8>) throws(Doubt) -> HistoryEvent {
        guard enabled else { throw Doubt() }
        var c = Cursor(b: line, i: 0)
        // A byte-order mark is skipped by the exact reader; rare enough to leave to it.
        if line.count >= 1, line[0] == 0xEF { throw Doubt() }
        var ev = HistoryEvent()
        try c.open(0x7B) // {
        var kind: HistoryEvent.Kind?
        if try !c.close(0x7D) {
            repeat {
                let keyRange = try c.key()
                guard let key = HistoryEvent.Key.named(line, keyRange), ev.keys & key.bit == 0 else { throw Doubt() }
                ev.keys |= key.bit
                try c.colon()
                switch key {
                case .e: kind = try c.kind()
                case .t: ev.t = try c.int(HistoryLimits.times)
                case .client: ev.client = try who(&c)
                case .seq: ev.seq = try c.optionalInt(HistoryLimits.txIDs)
                case .id: ev.id = try c.int(HistoryLimits.writeIDs)
                case .clientTime: ev.clientTime = try c.optionalInt(HistoryLimits.clientTimes)
                case .offline: ev.offline = try c.bool()
                case .burst: ev.burst = try c.optionalInt(HistoryLimits.smallIDs)
                case .ops: ev.ops = try ops(&c)
                case .sub: ev.sub = try c.int(HistoryLimits.smallIDs)
                case .fromCache: ev.fromCache = try c.bool()
                case .connected: ev.connected = try c.bool()
                case .result: ev.result = .some(try result(&c))
                case .writes: ev.writes = try writeIDs(&c)
                case .silent: ev.silent = try c.bool()
                case .write: ev.write = try c.int(HistoryLimits.writeIDs)
                case .tx: ev.tx = try c.int(HistoryLimits.txIDs)
                case .origin: ev.origin = try who(&c)
                case .after: ev.after = try records(&c)
                }
            } while try c.next(0x7D)
        }
        c.space()
        guard c.i == line.count, let kind else { throw Doubt() }
        ev.kind = kind
        return ev
    }

    // MARK: - Values of the schema

    /// `"A"`…: a client of this history, or `"admin"`.
    func who(_ c: inout Cursor) throws(Doubt) -> HistoryEvent.Who {
        let r = try c.plainString()
        if r.count == 1 {
            let x = Int(c.b[r.lowerBound]) - 65
            guard x >= 0 && x < clients else { throw Doubt() }
            return .client(x)
        }
        guard c.equals(r, "admin") else { throw Doubt() }
        return .admin
    }

    func entity(_ c: inout Cursor) throws(Doubt) -> EntityID {
        let r = HistoryLimits.entityIDs
        return EntityID(UInt32(try c.int(Int64(r.lowerBound)...Int64(r.upperBound))))
    }

    func writeIDs(_ c: inout Cursor) throws(Doubt) -> [WriteID] {
        var out: [WriteID] = []
        try c.open(0x5B) // [
        if try c.close(0x5D) { return out }
        repeat {
            out.append(WriteID(UInt32(try c.int(HistoryLimits.writeIDs))))
            guard out.count <= HistoryLimits.maxListCount else { throw Doubt() }
        } while try c.next(0x5D)
        return out
    }

    /// The first index whose name is `r`'s bytes (as `firstIndex(of:)` finds names).
    func index(of r: Range<Int>, in names: [[UInt8]], _ c: Cursor) -> Int? {
        for (k, n) in names.enumerated() where n.count == r.count {
            var same = true
            var j = 0
            while j < n.count { if n[j] != c.b[r.lowerBound + j] { same = false; break }; j += 1 }
            if same { return k }
        }
        return nil
    }

    func namespace(_ c: inout Cursor) throws(Doubt) -> NamespaceID {
        let r = try c.plainString()
        guard let k = index(of: r, in: nsNames, c) else { throw Doubt() }
        return NamespaceID(UInt8(k))
    }

    func link(_ c: inout Cursor) throws(Doubt) -> LinkID {
        let r = try c.plainString()
        guard let k = index(of: r, in: linkNames, c) else { throw Doubt() }
        return LinkID(UInt8(k))
    }

    /// A field value of `kind` (`HistoryCodec.value`).
    func value(_ c: inout Cursor, _ kind: FieldKind) throws(Doubt) -> FieldValue {
        switch kind {
        case .string: return .string(try c.string())
        case .int:
            let r = ScheduleLimits.intValues
            return .int(Int(try c.int(Int64(r.lowerBound)...Int64(r.upperBound))))
        case .bool: return .bool(try c.bool())
        }
    }

    /// `{"title": "Te", …}`: fields of `ns` in the file's order (`HistoryCodec.assignments`).
    func assignments(_ c: inout Cursor, _ ns: NamespaceID) throws(Doubt) -> [FieldAssignment] {
        var out: [FieldAssignment] = []
        try c.open(0x7B)
        if try c.close(0x7D) { return out }
        repeat {
            let r = try c.key()
            // `Schema.field(named:in:)`: the first field of that name, which must be of `ns`.
            guard let k = index(of: r, in: fieldNames, c) else { throw Doubt() }
            let f = FieldID(UInt8(k))
            guard schema.namespace(of: f) == ns, !out.contains(where: { $0.field == f }) else { throw Doubt() }
            try c.colon()
            out.append(FieldAssignment(f, try value(&c, schema.kind(of: f))))
        } while try c.next(0x7D)
        return out
    }

    /// `[op, …]` (`HistoryCodec.ops`).
    func ops(_ c: inout Cursor) throws(Doubt) -> [Op] {
        var out: [Op] = []
        try c.open(0x5B)
        if try c.close(0x5D) { return out }
        repeat {
            out.append(try op(&c))
            guard out.count <= HistoryLimits.maxListCount else { throw Doubt() }
        } while try c.next(0x5D)
        return out
    }

    /// One operation (`HistoryCodec.op`). `set` may come before `namespace`: then it is read
    /// again once the namespace is known.
    func op(_ c: inout Cursor) throws(Doubt) -> Op {
        enum K: UInt8 { case op = 1, entity = 2, namespace = 4, set = 8, link = 16, target = 32 }
        var seen: UInt8 = 0
        var kind = -1
        var e = EntityID(0), t = EntityID(0)
        var ns: NamespaceID?
        var l = LinkID(0)
        var a: [FieldAssignment] = []
        var setAt = -1, setEnd = -1
        try c.open(0x7B)
        if try c.close(0x7D) { throw Doubt() }
        repeat {
            let r = try c.key()
            let k: K
            if c.equals(r, "op") { k = .op } else if c.equals(r, "entity") { k = .entity }
            else if c.equals(r, "namespace") { k = .namespace } else if c.equals(r, "set") { k = .set }
            else if c.equals(r, "link") { k = .link } else if c.equals(r, "target") { k = .target }
            else { throw Doubt() }
            guard seen & k.rawValue == 0 else { throw Doubt() }
            seen |= k.rawValue
            try c.colon()
            switch k {
            case .op:
                let s = try c.plainString()
                if c.equals(s, "create") { kind = 0 } else if c.equals(s, "update") { kind = 1 }
                else if c.equals(s, "delete") { kind = 2 } else if c.equals(s, "link") { kind = 3 }
                else if c.equals(s, "unlink") { kind = 4 } else { throw Doubt() }
            case .entity: e = try entity(&c)
            case .namespace: ns = try namespace(&c)
            case .set:
                if let ns { a = try assignments(&c, ns) } else { c.space(); setAt = c.i; setEnd = try c.skipObject() }
            case .link: l = try link(&c)
            case .target: t = try entity(&c)
            }
        } while try c.next(0x7D)
        if setAt >= 0, let ns {
            var again = Cursor(b: c.b, i: setAt)
            a = try assignments(&again, ns)
            guard again.i == setEnd else { throw Doubt() }
        }
        let nsSet = K.namespace.rawValue | K.entity.rawValue | K.op.rawValue
        switch kind {
        case 0, 1:
            guard seen == nsSet | K.set.rawValue, let ns else { throw Doubt() }
            return kind == 0 ? .create(e, ns, a) : .update(e, ns, a)
        case 2:
            guard seen == nsSet, let ns else { throw Doubt() }
            return .delete(e, ns)
        case 3, 4:
            guard seen == K.op.rawValue | K.entity.rawValue | K.link.rawValue | K.target.rawValue else { throw Doubt() }
            return kind == 3 ? .link(e, l, t) : .unlink(e, l, t)
        default:
            throw Doubt()
        }
    }

    /// One record (`HistoryCodec.record`). `set` and `links` need the namespace: when they come
    /// before it they are read again once it is known.
    func record(_ c: inout Cursor) throws(Doubt) -> (EntityID, EntityRecord) {
        var seen: UInt8 = 0
        var e = EntityID(0)
        var rec: EntityRecord?
        var setAt = -1, setEnd = -1, linksAt = -1, linksEnd = -1
        try c.open(0x7B)
        if try c.close(0x7D) { throw Doubt() }
        repeat {
            let r = try c.key()
            let bit: UInt8
            if c.equals(r, "entity") { bit = 1 } else if c.equals(r, "namespace") { bit = 2 }
            else if c.equals(r, "set") { bit = 4 } else if c.equals(r, "links") { bit = 8 } else { throw Doubt() }
            guard seen & bit == 0 else { throw Doubt() }
            seen |= bit
            try c.colon()
            switch bit {
            case 1: e = try entity(&c)
            case 2: rec = EntityRecord(namespace: try namespace(&c), schema: schema)
            case 4:
                if rec != nil { try fields(&c, into: &rec!) } else { c.space(); setAt = c.i; setEnd = try c.skipObject() }
            default:
                if rec != nil { try links(&c, into: &rec!) } else { c.space(); linksAt = c.i; linksEnd = try c.skipObject() }
            }
        } while try c.next(0x7D)
        guard seen & 3 == 3, var rec else { throw Doubt() }
        if setAt >= 0 {
            var s = Cursor(b: c.b, i: setAt)
            try fields(&s, into: &rec)
            guard s.i == setEnd else { throw Doubt() }
        }
        if linksAt >= 0 {
            var s = Cursor(b: c.b, i: linksAt)
            try links(&s, into: &rec)
            guard s.i == linksEnd else { throw Doubt() }
        }
        return (e, rec)
    }

    /// A record's `set`: its fields, each once and of its type.
    func fields(_ c: inout Cursor, into rec: inout EntityRecord) throws(Doubt) {
        for x in try assignments(&c, rec.namespace) { rec[x.field] = x.value }
    }

    /// `{"author": 2, "tags": [4, 5]}` of a record of `ns`.
    func links(_ c: inout Cursor, into rec: inout EntityRecord) throws(Doubt) {
        let ns = rec.namespace
        var seen: [LinkID] = []
        try c.open(0x7B)
        if try c.close(0x7D) { return }
        repeat {
            let r = try c.key()
            guard let k = index(of: r, in: linkNames, c) else { throw Doubt() }
            let l = LinkID(UInt8(k))
            guard schema.source(of: l) == ns, !seen.contains(l) else { throw Doubt() }
            seen.append(l)
            try c.colon()
            if schema.isMany(l) {
                try c.open(0x5B)
                if try !c.close(0x5D) {
                    var n = 0
                    repeat {
                        rec.setLink(l, to: try entity(&c), many: true)
                        n += 1
                        guard n <= HistoryLimits.maxListCount else { throw Doubt() }
                    } while try c.next(0x5D)
                }
            } else if !(try c.null()) {
                rec.setLink(l, to: try entity(&c), many: false)
            }
        } while try c.next(0x7D)
    }

    func records(_ c: inout Cursor) throws(Doubt) -> [(EntityID, EntityRecord)] {
        var out: [(EntityID, EntityRecord)] = []
        try c.open(0x5B)
        if try c.close(0x5D) { return out }
        repeat {
            out.append(try record(&c))
            guard out.count <= HistoryLimits.maxListCount else { throw Doubt() }
        } while try c.next(0x5D)
        return out
    }

    /// A result or JSON null (`HistoryCodec.result`): roots and records ascending, each once.
    func result(_ c: inout Cursor) throws(Doubt) -> QueryResult? {
        if try c.null() { return nil }
        var roots: [EntityID] = []
        var entries: [QueryResult.Entry] = []
        var seen: UInt8 = 0
        try c.open(0x7B)
        if try c.close(0x7D) { throw Doubt() }
        repeat {
            let r = try c.key()
            try c.colon()
            if c.equals(r, "roots") {
                guard seen & 1 == 0 else { throw Doubt() }
                seen |= 1
                try c.open(0x5B)
                if try !c.close(0x5D) {
                    repeat {
                        roots.append(try entity(&c))
                        guard roots.count <= HistoryLimits.maxListCount else { throw Doubt() }
                    } while try c.next(0x5D)
                }
            } else if c.equals(r, "records") {
                guard seen & 2 == 0 else { throw Doubt() }
                seen |= 2
                try c.open(0x5B)
                if try !c.close(0x5D) {
                    repeat {
                        let (e, rec) = try record(&c)
                        entries.append(QueryResult.Entry(id: e, record: rec))
                        guard entries.count <= HistoryLimits.maxListCount else { throw Doubt() }
                    } while try c.next(0x5D)
                }
            } else {
                throw Doubt()
            }
        } while try c.next(0x7D)
        guard seen == 3 else { throw Doubt() }
        if !Self.strictlyAscending(roots) {
            roots.sort()
            guard Self.strictlyAscending(roots) else { throw Doubt() }
        }
        if !Self.strictlyAscending(entries, \.id) {
            entries.sort { $0.id < $1.id }
            guard Self.strictlyAscending(entries, \.id) else { throw Doubt() }
        }
        return QueryResult(roots: roots, entries: entries)
    }

    static func strictlyAscending(_ xs: [EntityID]) -> Bool { strictlyAscending(xs, \.self) }

    static func strictlyAscending<T>(_ xs: [T], _ id: (T) -> EntityID) -> Bool {
        var k = 1
        while k < xs.count { if !(id(xs[k - 1]) < id(xs[k])) { return false }; k += 1 }
        return true
    }
}

extension HistoryLineDecoder {
    /// A position in a line's bytes and the JSON tokens read there. Every mismatch is a `Doubt`.
    struct Cursor {
        let b: UnsafeBufferPointer<UInt8>
        var i: Int

        /// JSON whitespace (as `JSONReader` skips it).
        @inline(__always) mutating func space() {
            while i < b.count {
                let x = b[i]
                if x == 0x20 || x == 0x0A || x == 0x0D || x == 0x09 { i += 1 } else { return }
            }
        }

        /// `x` (after whitespace), consumed.
        @inline(__always) mutating func open(_ x: UInt8) throws(Doubt) {
            space()
            guard i < b.count, b[i] == x else { throw Doubt() }
            i += 1
        }

        /// Whether `x` follows (after whitespace); consumed if so. For an empty object or array.
        @inline(__always) mutating func close(_ x: UInt8) throws(Doubt) -> Bool {
            space()
            guard i < b.count else { throw Doubt() }
            if b[i] == x { i += 1; return true }
            return false
        }

        /// After a member or element: true on ',', false on `end`, a doubt otherwise.
        @inline(__always) mutating func next(_ end: UInt8) throws(Doubt) -> Bool {
            space()
            guard i < b.count else { throw Doubt() }
            let x = b[i]
            i += 1
            if x == 0x2C { return true }
            if x == end { return false }
            throw Doubt()
        }

        @inline(__always) mutating func colon() throws(Doubt) { try open(0x3A) }

        /// A key: a plain string, its bytes' range.
        @inline(__always) mutating func key() throws(Doubt) -> Range<Int> { try plainString() }

        /// A string of printable ASCII without escapes, as the range of its bytes (quotes excluded).
        /// Names, kinds and keys are such strings; anything else is left to the exact reader.
        mutating func plainString() throws(Doubt) -> Range<Int> {
            space()
            guard i < b.count, b[i] == 0x22 else { throw Doubt() }
            let start = i + 1
            var j = start
            while j < b.count {
                let x = b[j]
                if x == 0x22 { i = j + 1; return start..<j }
                if x == 0x5C || x < 0x20 || x >= 0x80 { throw Doubt() }
                j += 1
            }
            throw Doubt()
        }

        func equals(_ r: Range<Int>, _ s: StaticString) -> Bool {
            guard s.utf8CodeUnitCount == r.count else { return false }
            let p = s.utf8Start
            var k = 0
            while k < r.count { if p[k] != b[r.lowerBound + k] { return false }; k += 1 }
            return true
        }

        /// Any string value, as the exact reader decodes it, at most `ScheduleLimits.maxStringBytes`.
        /// Plain ASCII is made directly; a string with escapes or non-ASCII bytes is handed, alone,
        /// to `JSONReader` (the same decoding and UTF-8 validation), a doubt if it refuses.
        mutating func string() throws(Doubt) -> String {
            space()
            guard i < b.count, b[i] == 0x22 else { throw Doubt() }
            let start = i + 1
            var j = start
            var plain = true
            while j < b.count {
                let x = b[j]
                if x == 0x22 { break }
                if x < 0x20 { throw Doubt() }
                if x == 0x5C { plain = false; j += 2; continue }
                if x >= 0x80 { plain = false }
                j += 1
            }
            guard j < b.count else { throw Doubt() }
            let s: String
            if plain {
                s = String(decoding: UnsafeBufferPointer(rebasing: b[start..<j]), as: UTF8.self)
            } else {
                guard let node = try? JSONReader.read(Array(b[(start - 1)...j])), case .string(let v) = node.value else { throw Doubt() }
                s = v
            }
            guard s.utf8.count <= ScheduleLimits.maxStringBytes else { throw Doubt() }
            i = j + 1
            return s
        }

        /// The event kind (`"e"`): the kinds the fast path applies; any other is a doubt.
        mutating func kind() throws(Doubt) -> HistoryEvent.Kind {
            let r = try plainString()
            switch r.count {
            case 4 where equals(r, "done"): return .done
            case 4 where equals(r, "view"): return .view
            case 5 where equals(r, "write"): return .write
            case 5 where equals(r, "yield"): return .yield
            case 5 where equals(r, "queue"): return .queue
            case 6 where equals(r, "commit"): return .commit
            case 9 where equals(r, "confirmed"): return .confirmed
            default: throw Doubt()
            }
        }

        /// A whole number in `range`, written as the grammar allows (no leading zero); a
        /// fraction or an exponent (which the exact path refuses or reads as text) is a doubt.
        mutating func int(_ range: ClosedRange<Int64>) throws(Doubt) -> Int64 {
            space()
            guard i < b.count else { throw Doubt() }
            var negative = false
            if b[i] == 0x2D { negative = true; i += 1 }
            guard i < b.count, b[i] >= 0x30, b[i] <= 0x39 else { throw Doubt() }
            var v: Int64 = 0
            if b[i] == 0x30 {
                i += 1
            } else {
                let start = i
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                    // 18 digits always fit; longer numbers are rare enough for the exact path.
                    guard i - start < 18 else { throw Doubt() }
                    v = v &* 10 &+ Int64(b[i] &- 0x30)
                    i += 1
                }
            }
            if i < b.count, b[i] == 0x2E || b[i] == 0x65 || b[i] == 0x45 || (b[i] >= 0x30 && b[i] <= 0x39) { throw Doubt() }
            if negative { v = -v }
            guard range.contains(v) else { throw Doubt() }
            return v
        }

        /// An optional whole number: JSON null is nil (as `HistoryFields.optionalInt` reads it).
        mutating func optionalInt(_ range: ClosedRange<Int64>) throws(Doubt) -> Int64? {
            if try null() { return nil }
            return try int(range)
        }

        mutating func bool() throws(Doubt) -> Bool {
            space()
            if literal("true") { return true }
            if literal("false") { return false }
            throw Doubt()
        }

        /// Whether a JSON null follows; consumed if so.
        mutating func null() throws(Doubt) -> Bool {
            space()
            return literal("null")
        }

        mutating func literal(_ s: StaticString) -> Bool {
            let n = s.utf8CodeUnitCount
            guard i + n <= b.count, equals(i..<(i + n), s) else { return false }
            i += n
            return true
        }

        /// Skips one object whose meaning must wait (a `set` before its `namespace`), returning
        /// where it ends. Only finds the end: the caller reads it again in full, with every check,
        /// and doubts unless that reading ends at the same place.
        mutating func skipObject() throws(Doubt) -> Int {
            space()
            guard i < b.count, b[i] == 0x7B else { throw Doubt() }
            var depth = 0
            while i < b.count {
                switch b[i] {
                case 0x22:
                    i += 1
                    while i < b.count, b[i] != 0x22 { i += b[i] == 0x5C ? 2 : 1 }
                    guard i < b.count else { throw Doubt() }
                case 0x7B, 0x5B:
                    depth += 1
                    guard depth <= 16 else { throw Doubt() }
                case 0x7D, 0x5D:
                    depth -= 1
                    if depth == 0 { i += 1; return i }
                default:
                    break
                }
                i += 1
            }
            throw Doubt()
        }
    }
}

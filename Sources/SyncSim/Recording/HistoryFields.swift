/// Typed, range-checked reads of one JSON object of a history line, each failure naming the
/// JSON path and column. Hand-written over `JSONNode` rather than `Codable`: a history may have
/// millions of lines, and decoding each through `JSONDecoder` costs tens of microseconds where
/// this costs a few. Unknown keys are errors (a typo must never silently drop a fact).
struct HistoryFields {
    let members: [JSONMember]
    let path: String
    let location: JSONLocation

    struct Failure: Error {
        var column: Int
        var path: String
        var message: String

        /// The failure of a nested value, its path put under `parent`. Nested readers work with
        /// paths relative to their value and the caller adds its own only when something fails:
        /// building every path eagerly was most of the cost of reading a history.
        func under(_ parent: String) -> Failure {
            var f = self
            if parent.isEmpty { return f }
            f.path = path.isEmpty ? parent : (path.hasPrefix("[") ? parent + path : parent + "." + path)
            return f
        }
    }

    init(_ node: JSONNode, path: String) throws {
        guard case .object(let ms) = node.value else {
            throw Failure(column: node.location.column, path: path, message: "expected an object")
        }
        members = ms
        self.path = path
        location = node.location
    }

    func sub(_ key: String) -> String { path.isEmpty ? key : path + "." + key }

    func fail(_ key: String?, _ message: String) -> Failure {
        let col = key.flatMap { k in members.first { $0.key == k }?.value.location.column } ?? location.column
        return Failure(column: col, path: key.map(sub) ?? path, message: message)
    }

    static func fail(_ node: JSONNode, _ path: @autoclosure () -> String, _ message: String) -> Failure {
        Failure(column: node.location.column, path: path(), message: message)
    }

    /// Refuses keys outside `allowed`, naming the allowed ones (and the closest, for a typo).
    func only(_ allowed: [String]) throws {
        for m in members where !allowed.contains(m.key) {
            throw Failure(column: m.keyLocation.column, path: sub(m.key),
                          message: "unknown key '\(JSONText.clipped(m.key))'\(suggestion(m.key, allowed)); expected one of: \(allowed.joined(separator: ", "))")
        }
    }

    func node(_ key: String) -> JSONNode? {
        for m in members where m.key == key { return m.value }
        return nil
    }

    func has(_ key: String) -> Bool { node(key) != nil }

    func required(_ key: String) throws -> JSONNode {
        guard let n = node(key) else { throw fail(nil, "missing required key '\(key)'") }
        return n
    }

    // MARK: - Scalars

    static func int(_ n: JSONNode, _ path: @autoclosure () -> String, _ range: ClosedRange<Int64>) throws -> Int64 {
        guard case .number(let text) = n.value else { throw fail(n, path(), "expected a whole number in \(range.lowerBound)…\(range.upperBound)") }
        guard let v = Int64(text), range.contains(v) else {
            throw fail(n, path(), "\(JSONText.clipped(text, 30)) is not a whole number in \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    func int(_ key: String, _ range: ClosedRange<Int64>) throws -> Int64 { try Self.int(try required(key), sub(key), range) }

    func optionalInt(_ key: String, _ range: ClosedRange<Int64>) throws -> Int64? {
        guard let n = node(key) else { return nil }
        if case .null = n.value { return nil }
        return try Self.int(n, sub(key), range)
    }

    func bool(_ key: String, default d: Bool? = nil) throws -> Bool {
        guard let n = node(key) else {
            if let d { return d }
            throw fail(nil, "missing required key '\(key)'")
        }
        guard case .bool(let b) = n.value else { throw Self.fail(n, sub(key), "expected true or false") }
        return b
    }

    static func string(_ n: JSONNode, _ path: @autoclosure () -> String) throws -> String {
        guard case .string(let s) = n.value else { throw fail(n, path(), "expected a string") }
        guard s.utf8.count <= ScheduleLimits.maxStringBytes else {
            throw fail(n, path(), "a string longer than \(ScheduleLimits.maxStringBytes) bytes")
        }
        return s
    }

    func string(_ key: String) throws -> String { try Self.string(try required(key), sub(key)) }

    func optionalString(_ key: String) throws -> String? {
        guard let n = node(key) else { return nil }
        return try Self.string(n, sub(key))
    }

    static func array(_ n: JSONNode, _ path: @autoclosure () -> String) throws -> [JSONNode] {
        guard case .array(let xs) = n.value else { throw fail(n, path(), "expected an array") }
        guard xs.count <= HistoryLimits.maxListCount else { throw fail(n, path(), "more than \(HistoryLimits.maxListCount) elements") }
        return xs
    }

    // MARK: - Ids

    /// A client by name (`"A"`, `"B"`, … as stories print them), one of the header's clients.
    static func client(_ n: JSONNode, _ path: @autoclosure () -> String, clients: Int) throws -> ClientID {
        guard case .string(let s) = n.value, let c = ClientID(name: s), c.index < clients else {
            let names = (0..<clients).map { ClientID($0).description }.joined(separator: ", ")
            throw fail(n, path(), "expected a client name of this history: \(names)")
        }
        return c
    }

    func client(_ key: String, clients: Int) throws -> ClientID { try Self.client(try required(key), sub(key), clients: clients) }

    /// `"A"` or `"admin"` (the server-side writer).
    func origin(_ key: String, clients: Int) throws -> Origin {
        let n = try required(key)
        if case .string("admin") = n.value { return .admin }
        do { return .client(try Self.client(n, sub(key), clients: clients)) } catch {
            let names = (0..<clients).map { ClientID($0).description }.joined(separator: ", ")
            throw Self.fail(n, sub(key), "expected \"admin\" or a client name of this history: \(names)")
        }
    }

    static func writeID(_ n: JSONNode, _ path: @autoclosure () -> String) throws -> WriteID {
        WriteID(UInt32(try int(n, path(), HistoryLimits.writeIDs)))
    }

    func writeID(_ key: String) throws -> WriteID { try Self.writeID(try required(key), sub(key)) }

    func writeIDs(_ key: String) throws -> [WriteID] {
        let xs = try Self.array(try required(key), sub(key))
        return try xs.enumerated().map { try Self.writeID($0.element, sub(key) + "[\($0.offset)]") }
    }

    func smallID(_ key: String) throws -> UInt32 { UInt32(try int(key, HistoryLimits.smallIDs)) }

    static func entity(_ n: JSONNode, _ path: @autoclosure () -> String) throws -> EntityID {
        let r = HistoryLimits.entityIDs
        return EntityID(UInt32(try int(n, path(), Int64(r.lowerBound)...Int64(r.upperBound))))
    }

    func entity(_ key: String) throws -> EntityID { try Self.entity(try required(key), sub(key)) }

    func time(_ key: String = "t") throws -> Int64 { try int(key, HistoryLimits.times) }
}

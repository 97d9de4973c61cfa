/// A small, strict JSON reader for files people and tools hand us (scenario files).
///
/// Why our own: Foundation's parser reports a syntax error without a line and column on every
/// platform we support, silently keeps one of two duplicate keys, and its nesting limit is
/// large enough to exhaust the stack on some platforms. This reader is RFC 8259 strict (no
/// comments, no trailing commas, no NaN), bounded in depth and size, names every problem by
/// `line:column` and JSON path, and keeps numbers as their text so the caller decides what a
/// number may be (scenario files allow whole numbers only). It never traps on any input.
public enum JSONReader {
    /// Nesting deeper than this is refused (scenario files need 6 levels).
    public static let defaultMaxDepth = 64

    /// Parses `bytes` (UTF-8, an optional byte-order mark is skipped) into a tree with locations.
    /// - Throws: `JSONReadError` naming the line, column and JSON path of the first problem.
    public static func read(_ bytes: [UInt8], maxDepth: Int = defaultMaxDepth) throws -> JSONNode {
        var p = Parser(bytes: bytes, maxDepth: maxDepth)
        return try p.document()
    }
}

/// Where a value starts in the text: 1-based line and column (columns count Unicode scalars).
public struct JSONLocation: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int
    public init(line: Int, column: Int) { self.line = line; self.column = column }
    public var description: String { "\(line):\(column)" }
}

/// One JSON value and where it starts.
public struct JSONNode: Sendable {
    public indirect enum Value: Sendable {
        case object([JSONMember])
        case array([JSONNode])
        case string(String)
        /// The number's text exactly as written (`-12`, `1.5e3`), already checked against the grammar.
        case number(String)
        case bool(Bool)
        case null
    }
    public var value: Value
    public var location: JSONLocation
    public init(value: Value, location: JSONLocation) { self.value = value; self.location = location }

    /// The node at a path of object keys and array indices (`JSONPathComponent`s), or nil.
    public func node(at path: [JSONPathComponent]) -> JSONNode? {
        var n = self
        for c in path {
            switch (c, n.value) {
            case (.key(let k), .object(let ms)):
                guard let m = ms.first(where: { $0.key == k }) else { return nil }
                n = m.value
            case (.index(let i), .array(let xs)):
                guard i >= 0 && i < xs.count else { return nil }
                n = xs[i]
            default:
                return nil
            }
        }
        return n
    }

    /// The location of the deepest node along `path` that exists (the whole document at worst):
    /// a message about a missing key points at the object that lacks it.
    public func nearestLocation(of path: [JSONPathComponent]) -> JSONLocation {
        var best = location
        for k in stride(from: path.count, through: 0, by: -1) {
            if let n = node(at: Array(path.prefix(k))) { best = n.location; break }
        }
        return best
    }
}

/// An object member: its key (with the key's own location) and value, in file order.
public struct JSONMember: Sendable {
    public var key: String
    public var keyLocation: JSONLocation
    public var value: JSONNode
    public init(key: String, keyLocation: JSONLocation, value: JSONNode) { self.key = key; self.keyLocation = keyLocation; self.value = value }
}

/// One step of a JSON path.
public enum JSONPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)

    /// `actions[3].set.title`: keys joined by dots, indices in brackets; long or odd keys are
    /// clipped and escaped by `JSONText.quoteless`.
    public static func render(_ path: [JSONPathComponent]) -> String {
        var s = ""
        for c in path {
            switch c {
            case .index(let i): s += "[\(i)]"
            case .key(let k): s += (s.isEmpty ? "" : ".") + JSONText.clipped(k, 40)
            }
        }
        return s
    }

    /// Parses a path written by `render` (best effort: keys with dots or brackets split).
    public static func parse(_ s: String) -> [JSONPathComponent] {
        var out: [JSONPathComponent] = []
        var cur = ""
        var inIndex = false
        func flushKey() { if !cur.isEmpty { out.append(.key(cur)) }; cur = "" }
        for ch in s {
            if inIndex {
                if ch == "]" { out.append(.index(Int(cur) ?? -1)); cur = ""; inIndex = false } else { cur.append(ch) }
            } else if ch == "." {
                flushKey()
            } else if ch == "[" {
                flushKey(); inIndex = true
            } else {
                cur.append(ch)
            }
        }
        if !inIndex { flushKey() }
        return out
    }
}

/// A file that is not the JSON we accept: where, along which path, and what to do.
public struct JSONReadError: Error, Hashable, Sendable, CustomStringConvertible {
    public var location: JSONLocation
    public var path: String
    public var message: String
    public var description: String { "\(location): \(path.isEmpty ? "" : path + ": ")\(message)" }
}

/// Text for error messages built from hostile input: control characters (NUL included) are
/// escaped, so a message is never cut short by a terminal or a C string, and long values are
/// clipped, so a 1 MB string cannot become a 1 MB message.
public enum JSONText {
    /// A value quoted in a message: control characters and backslashes escaped, clipped to
    /// `limit` characters (with `…`).
    public static func clipped(_ s: String, _ limit: Int = 60) -> String {
        escaped(s, limit: limit, backslashes: true)
    }

    /// A whole message: control characters escaped (backslashes kept, the message may show an
    /// escape on purpose), clipped to `limit` characters.
    public static func sanitized(_ s: String, limit: Int = 2_000) -> String {
        escaped(s, limit: limit, backslashes: false)
    }

    static func escaped(_ s: String, limit: Int, backslashes: Bool) -> String {
        var out = ""
        var n = 0
        for u in s.unicodeScalars {
            if n >= limit { return out + "…" }
            switch u.value {
            case 0x00..<0x20, 0x7F, 0x80..<0xA0, 0x2028, 0x2029:
                out += "\\u{\(String(u.value, radix: 16))}"
            case 0x5C where backslashes: out += "\\\\"
            default: out.unicodeScalars.append(u)
            }
            n += 1
        }
        return out
    }
}

extension JSONReader {
    struct Parser {
        let bytes: [UInt8]
        let maxDepth: Int
        var i = 0
        var line = 1
        var column = 1
        var path: [JSONPathComponent] = []

        init(bytes: [UInt8], maxDepth: Int) {
            self.bytes = bytes
            self.maxDepth = maxDepth
            if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { i = 3 }
        }

        var here: JSONLocation { JSONLocation(line: line, column: column) }

        func fail(_ message: String, at loc: JSONLocation? = nil) -> JSONReadError {
            JSONReadError(location: loc ?? here, path: JSONPathComponent.render(path), message: message)
        }

        /// Advances one byte, keeping line and column (a column per Unicode scalar).
        mutating func advance() {
            let b = bytes[i]
            i += 1
            if b == 0x0A { line += 1; column = 1 } else if b & 0xC0 != 0x80 { column += 1 }
        }

        mutating func skipSpace() {
            while i < bytes.count {
                switch bytes[i] {
                case 0x20, 0x09, 0x0A, 0x0D: advance()
                default: return
                }
            }
        }

        /// What the byte at the cursor is, for messages.
        func describeHere() -> String {
            guard i < bytes.count else { return "the end of the file" }
            let b = bytes[i]
            if b == 0 { return "a NUL byte" }
            if b < 0x20 || b == 0x7F { return "control character U+\(String(format2(b)))" }
            if b >= 0x80 { return "a non-ASCII byte" }
            return "'\(Character(UnicodeScalar(b)))'"
        }

        func format2(_ b: UInt8) -> String { let h = String(b, radix: 16, uppercase: true); return String(repeating: "0", count: 4 - h.count) + h }

        mutating func document() throws -> JSONNode {
            skipSpace()
            guard i < bytes.count else { throw fail("the file is empty; expected a JSON object such as {\"format\": 1, …}") }
            let v = try value(depth: 0)
            skipSpace()
            guard i == bytes.count else {
                throw fail("unexpected \(describeHere()) after the end of the JSON value; remove it")
            }
            return v
        }

        mutating func value(depth: Int) throws -> JSONNode {
            guard depth < maxDepth else {
                throw fail("nested more than \(maxDepth) levels deep; scenario files need far fewer")
            }
            let at = here
            guard i < bytes.count else { throw fail("the file ends early; expected a value") }
            switch bytes[i] {
            case UInt8(ascii: "{"): return JSONNode(value: try object(depth: depth), location: at)
            case UInt8(ascii: "["): return JSONNode(value: try array(depth: depth), location: at)
            case UInt8(ascii: "\""): return JSONNode(value: .string(try string()), location: at)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return JSONNode(value: .number(try number()), location: at)
            case UInt8(ascii: "t"): try literal("true"); return JSONNode(value: .bool(true), location: at)
            case UInt8(ascii: "f"): try literal("false"); return JSONNode(value: .bool(false), location: at)
            case UInt8(ascii: "n"): try literal("null"); return JSONNode(value: .null, location: at)
            default:
                throw fail("unexpected \(describeHere()); expected a value (an object, array, string, number, true, false or null)")
            }
        }

        mutating func literal(_ word: String) throws {
            let at = here
            for b in word.utf8 {
                guard i < bytes.count, bytes[i] == b else { throw fail("expected '\(word)'", at: at) }
                advance()
            }
        }

        mutating func object(depth: Int) throws -> JSONNode.Value {
            advance() // {
            var members: [JSONMember] = []
            // Duplicate keys: a linear search while the object is small (the usual case), a
            // table once it is not, so a hostile object of 100,000 keys stays linear.
            var seen: [String: JSONLocation] = [:]
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "}") { advance(); return .object([]) }
            while true {
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: "\"") else {
                    if i < bytes.count, bytes[i] == UInt8(ascii: "}") {
                        throw fail("a trailing comma before '}'; remove the comma")
                    }
                    throw fail("unexpected \(describeHere()); expected a key in double quotes")
                }
                let keyAt = here
                let key = try string()
                let first: JSONLocation?
                if members.count < 16 {
                    first = members.first { $0.key == key }?.keyLocation
                } else {
                    if seen.isEmpty { for m in members { seen[m.key] = m.keyLocation } }
                    first = seen[key]
                    seen[key] = keyAt
                }
                if let first {
                    path.append(.key(key))
                    defer { path.removeLast() }
                    throw fail("duplicate key '\(JSONText.clipped(key))' (first at \(first)); keep one", at: keyAt)
                }
                skipSpace()
                guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else {
                    throw fail("unexpected \(describeHere()) after key '\(JSONText.clipped(key))'; expected ':'")
                }
                advance()
                skipSpace()
                path.append(.key(key))
                let v = try value(depth: depth + 1)
                path.removeLast()
                members.append(JSONMember(key: key, keyLocation: keyAt, value: v))
                skipSpace()
                guard i < bytes.count else { throw fail("the file ends inside an object; expected ',' or '}'") }
                if bytes[i] == UInt8(ascii: ",") { advance(); continue }
                if bytes[i] == UInt8(ascii: "}") { advance(); return .object(members) }
                throw fail("unexpected \(describeHere()) after a value; expected ',' or '}'")
            }
        }

        mutating func array(depth: Int) throws -> JSONNode.Value {
            advance() // [
            var items: [JSONNode] = []
            skipSpace()
            if i < bytes.count, bytes[i] == UInt8(ascii: "]") { advance(); return .array([]) }
            while true {
                skipSpace()
                if i < bytes.count, bytes[i] == UInt8(ascii: "]") {
                    throw fail("a trailing comma before ']'; remove the comma")
                }
                path.append(.index(items.count))
                let v = try value(depth: depth + 1)
                path.removeLast()
                items.append(v)
                skipSpace()
                guard i < bytes.count else { throw fail("the file ends inside an array; expected ',' or ']'") }
                if bytes[i] == UInt8(ascii: ",") { advance(); continue }
                if bytes[i] == UInt8(ascii: "]") { advance(); return .array(items) }
                throw fail("unexpected \(describeHere()) after an array element; expected ',' or ']'")
            }
        }

        mutating func hex4() throws -> UInt32 {
            var v: UInt32 = 0
            for _ in 0..<4 {
                guard i < bytes.count else { throw fail("the file ends inside a \\u escape") }
                let b = bytes[i]
                let d: UInt32
                switch b {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): d = UInt32(b - UInt8(ascii: "0"))
                case UInt8(ascii: "a")...UInt8(ascii: "f"): d = UInt32(b - UInt8(ascii: "a") + 10)
                case UInt8(ascii: "A")...UInt8(ascii: "F"): d = UInt32(b - UInt8(ascii: "A") + 10)
                default: throw fail("expected 4 hex digits after \\u, got \(describeHere())")
                }
                v = v * 16 + d
                advance()
            }
            return v
        }

        mutating func string() throws -> String {
            let start = here
            advance() // "
            // Fast path: a string without escapes or control characters (nearly every key and
            // value) is validated and made in one step from its bytes, instead of byte by byte.
            // (ASCII only: any byte sequence below 0x80 is valid UTF-8; others take the checked path.)
            var j = i
            while j < bytes.count {
                let b = bytes[j]
                if b == UInt8(ascii: "\"") || b == UInt8(ascii: "\\") || b < 0x20 || b >= 0x80 { break }
                j += 1
            }
            if j < bytes.count, bytes[j] == UInt8(ascii: "\"") {
                let s = String(decoding: bytes[i..<j], as: UTF8.self)
                column += j - i + 1
                i = j + 1
                return s
            }
            var out: [UInt8] = []
            while true {
                guard i < bytes.count else { throw fail("the file ends inside a string (opened at \(start)); close it with \"") }
                let b = bytes[i]
                if b == UInt8(ascii: "\"") { advance(); break }
                if b < 0x20 {
                    throw fail(b == 0x0A ? "a line break inside a string (opened at \(start)); close the string or write \\n"
                                         : "\(describeHere()) inside a string; write it as \\u\(format2(b))")
                }
                if b == UInt8(ascii: "\\") {
                    advance()
                    guard i < bytes.count else { throw fail("the file ends inside a string escape") }
                    let e = bytes[i]
                    switch e {
                    case UInt8(ascii: "\""): out.append(0x22); advance()
                    case UInt8(ascii: "\\"): out.append(0x5C); advance()
                    case UInt8(ascii: "/"): out.append(0x2F); advance()
                    case UInt8(ascii: "b"): out.append(0x08); advance()
                    case UInt8(ascii: "f"): out.append(0x0C); advance()
                    case UInt8(ascii: "n"): out.append(0x0A); advance()
                    case UInt8(ascii: "r"): out.append(0x0D); advance()
                    case UInt8(ascii: "t"): out.append(0x09); advance()
                    case UInt8(ascii: "u"):
                        advance()
                        var scalar = try hex4()
                        if scalar >= 0xD800 && scalar < 0xDC00 {
                            guard i + 1 < bytes.count, bytes[i] == UInt8(ascii: "\\"), bytes[i + 1] == UInt8(ascii: "u") else {
                                throw fail("a lone surrogate \\u\(String(scalar, radix: 16)) in a string; pair it or remove it")
                            }
                            advance(); advance()
                            let low = try hex4()
                            guard low >= 0xDC00 && low < 0xE000 else { throw fail("a lone surrogate in a string; pair it or remove it") }
                            scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                        } else if scalar >= 0xDC00 && scalar < 0xE000 {
                            throw fail("a lone surrogate \\u\(String(scalar, radix: 16)) in a string; pair it or remove it")
                        }
                        guard let u = Unicode.Scalar(scalar) else { throw fail("an invalid \\u escape") }
                        out.append(contentsOf: Array(String(Character(u)).utf8))
                    default:
                        throw fail("unknown escape \\\(describeHere()) in a string; valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
                    }
                    continue
                }
                out.append(b)
                advance()
            }
            guard let s = String(validatingUTF8Bytes: out) else {
                throw fail("a string that is not valid UTF-8 (opened at \(start)); save the file as UTF-8", at: start)
            }
            return s
        }

        mutating func number() throws -> String {
            let start = i
            let at = here
            func digits() -> Int { var n = 0; while i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { advance(); n += 1 }; return n }
            if bytes[i] == UInt8(ascii: "-") { advance() }
            guard i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 else { throw fail("expected a digit after '-'", at: at) }
            if bytes[i] == UInt8(ascii: "0") {
                advance()
                if i < bytes.count, bytes[i] >= 0x30, bytes[i] <= 0x39 { throw fail("a number with a leading zero; write it without", at: at) }
            } else {
                _ = digits()
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: ".") {
                advance()
                guard digits() > 0 else { throw fail("expected a digit after '.'", at: at) }
            }
            if i < bytes.count, bytes[i] == UInt8(ascii: "e") || bytes[i] == UInt8(ascii: "E") {
                advance()
                if i < bytes.count, bytes[i] == UInt8(ascii: "+") || bytes[i] == UInt8(ascii: "-") { advance() }
                guard digits() > 0 else { throw fail("expected a digit in the exponent", at: at) }
            }
            let text = String(decoding: bytes[start..<i], as: UTF8.self)
            guard text.utf8.count <= 40 else { throw fail("a number of \(text.utf8.count) characters; no value here needs more than 20", at: at) }
            return text
        }
    }
}

extension String {
    /// The string for UTF-8 bytes, or nil if they are not valid UTF-8 (no replacement characters).
    init?(validatingUTF8Bytes bytes: [UInt8]) {
        var it = bytes.makeIterator()
        var codec = UTF8()
        var s = ""
        s.reserveCapacity(bytes.count)
        loop: while true {
            switch codec.decode(&it) {
            case .scalarValue(let u): s.unicodeScalars.append(u)
            case .emptyInput: break loop
            case .error: return nil
            }
        }
        self = s
    }
}

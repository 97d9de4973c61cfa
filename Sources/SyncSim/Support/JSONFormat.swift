import Foundation

/// Canonical JSON text: keys sorted, and any array or object whose one-line form fits in
/// `width` columns kept on one line — so a scenario file shows one action per line and diffs
/// read well. Works on the compact output of `JSONEncoder` (`.sortedKeys`), token by token.
public enum JSONFormat {
    /// - Parameter leadingKeys: top-level keys to put first, in this order (the rest follow sorted).
    public static func encode<T: Encodable>(_ value: T, width: Int = 110, leadingKeys: [String] = []) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let compact = String(decoding: try e.encode(value), as: UTF8.self)
        var p = Parser(chars: Array(compact.unicodeScalars))
        var tree = p.parse()
        if case .object(let fields) = tree, !leadingKeys.isEmpty {
            // Keys are stored with their quotes.
            func rank(_ quoted: String) -> Int { leadingKeys.firstIndex(of: String(quoted.dropFirst().dropLast())) ?? leadingKeys.count }
            tree = .object(fields.enumerated().sorted { (rank($0.element.0), $0.offset) < (rank($1.element.0), $1.offset) }.map(\.element))
        }
        var out = ""
        write(tree, level: 0, column: 0, width: width, into: &out)
        return out + "\n"
    }

    indirect enum Node {
        case scalar(String)
        case array([Node])
        case object([(String, Node)])
    }

    struct Parser {
        let chars: [Unicode.Scalar]
        var i = 0

        mutating func parse() -> Node {
            switch chars[i] {
            case "{":
                i += 1
                var fields: [(String, Node)] = []
                while chars[i] != "}" {
                    let key = string()
                    i += 1 // ':'
                    fields.append((key, parse()))
                    if chars[i] == "," { i += 1 }
                }
                i += 1
                return .object(fields)
            case "[":
                i += 1
                var items: [Node] = []
                while chars[i] != "]" {
                    items.append(parse())
                    if chars[i] == "," { i += 1 }
                }
                i += 1
                return .array(items)
            case "\"":
                return .scalar(string())
            default:
                var s = ""
                while i < chars.count, !",]}".unicodeScalars.contains(chars[i]) { s.unicodeScalars.append(chars[i]); i += 1 }
                return .scalar(s)
            }
        }

        /// A string token, returned with its quotes and escapes intact.
        mutating func string() -> String {
            var s = "\""
            i += 1
            while chars[i] != "\"" {
                if chars[i] == "\\" { s.unicodeScalars.append(chars[i]); i += 1 }
                s.unicodeScalars.append(chars[i])
                i += 1
            }
            i += 1
            return s + "\""
        }
    }

    static func oneLine(_ n: Node) -> String {
        switch n {
        case .scalar(let s): return s
        case .array(let items): return "[" + items.map(oneLine).joined(separator: ", ") + "]"
        case .object(let f): return "{" + f.map { "\($0.0): \(oneLine($0.1))" }.joined(separator: ", ") + "}"
        }
    }

    /// `level` is the nesting depth (2 spaces each); `column` where the value starts on its line.
    static func write(_ n: Node, level: Int, column: Int, width: Int, into out: inout String) {
        let line = oneLine(n)
        if column + line.count <= width { out += line; return }
        let pad = String(repeating: "  ", count: level + 1)
        let close = String(repeating: "  ", count: level)
        switch n {
        case .scalar(let s): out += s
        case .array(let items):
            out += "[\n"
            for (k, it) in items.enumerated() {
                out += pad
                write(it, level: level + 1, column: pad.count, width: width, into: &out)
                out += k + 1 < items.count ? ",\n" : "\n"
            }
            out += close + "]"
        case .object(let fields):
            out += "{\n"
            for (k, (key, v)) in fields.enumerated() {
                out += pad + key + ": "
                write(v, level: level + 1, column: pad.count + key.count + 2, width: width, into: &out)
                out += k + 1 < fields.count ? ",\n" : "\n"
            }
            out += close + "}"
        }
    }
}

import Foundation
import SyncSim

/// Deterministic mutations of scenario files, as a hostile or careless user would make them:
/// byte-level (truncation, NUL bytes, flipped and deleted bytes, stray tokens) and
/// structure-level (numbers to extremes, huge ids, deleted and duplicated keys, type swaps,
/// deep nesting, long strings, reordered and repeated actions, extreme options). The same
/// (corpus, seed, index) always gives the same mutant, so a failure names its mutant exactly.
struct ScenarioMutator {
    /// The corpus: each file's name and bytes.
    let corpus: [(name: String, bytes: [UInt8])]

    /// Mutant number `index` of run `seed`: which file it came from, what was done, its bytes.
    func mutant(seed: UInt64, index: Int) -> (source: String, steps: [String], bytes: [UInt8]) {
        var r = SimRandom(seed: seed &+ UInt64(index) &* 0x9E37_79B9_7F4A_7C15)
        let (name, original) = corpus[r.index(corpus.count)]
        var bytes = original
        var steps: [String] = []
        // Mostly one mutation (most such mutants are still meaningful files), sometimes two or three.
        let count = [1, 1, 1, 1, 2, 2, 3][r.index(7)]
        for _ in 0..<count {
            // Two in three mutations are structural (they reach the decoder and compiler); the
            // rest are byte-level (they reach the JSON reader).
            if r.below(3) < 2, let tree = try? JSONReader.read(bytes) {
                let (t, what) = Self.mutateTree(tree, &r)
                bytes = Array(Self.serialize(t).utf8)
                steps.append(what)
            } else {
                steps.append(Self.mutateBytes(&bytes, &r))
            }
        }
        return (name, steps, bytes)
    }

    // MARK: Byte level

    static let tokens: [String] = ["{", "}", "[", "]", "\"", ",", ":", "-", "1e999", "\\u0000", "\u{0}", "\\", "nul", "00", "\u{FEFF}", "\u{2028}", "\r\n", "\"\\ud800\""]

    static func mutateBytes(_ b: inout [UInt8], _ r: inout SimRandom) -> String {
        guard !b.isEmpty else { b = [0]; return "NUL into an empty file" }
        let at = r.index(b.count)
        switch r.below(6) {
        case 0:
            b.removeSubrange(at...)
            return "truncate at byte \(at)"
        case 1:
            b.insert(0, at: at)
            return "NUL byte at \(at)"
        case 2:
            let v = UInt8(truncatingIfNeeded: r.next())
            b[at] = v
            return "byte \(at) := \(v)"
        case 3:
            let n = min(b.count - at, 1 + r.index(40))
            b.removeSubrange(at..<(at + n))
            return "delete bytes \(at)..<\(at + n)"
        case 4:
            let n = min(b.count - at, 1 + r.index(60))
            b.insert(contentsOf: b[at..<(at + n)], at: at)
            return "duplicate bytes \(at)..<\(at + n)"
        default:
            let t = tokens[r.index(tokens.count)]
            b.insert(contentsOf: Array(t.utf8), at: at)
            return "insert \(t.debugDescription) at \(at)"
        }
    }

    // MARK: Structure level

    static let extremeNumbers: [String] = [
        "0", "-1", "1", "2", "26", "27", "-86400000", "86400000", "86400001", "999999", "1000000", "4096", "65535",
        "2147483647", "2147483648", "4294967295", "4294967296", "9007199254740991", "9007199254740992",
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "18446744073709551615",
        "18446744073709551616", "1.5", "1e3", "-0", "0.0", "1E+2", "123456789012345678901234567890",
    ]
    static let names: [String] = [
        "instant", "fullEntity", "sharedDiff", "conflictPrompt", "pushPull", "reference", "Instant", "nope",
        "holds", "convergence", "liveness", "noGhostDeletion", "create", "update", "delete", "link", "unlink", "type",
        "serverCreate", "serverUpdate", "serverDelete", "subscribe", "unsubscribe", "queryOnce", "offline", "online",
        "unreachable", "reachable", "restart", "forceSync", "A", "B", "C", "Z", "C26", "C99999999999999999999", "a",
        "todos", "profiles", "posts", "notes", "title", "done", "priority", "author", "keepLocal", "keepServer",
        "alternate", "", "\u{0}", "x\u{0}y", "🙂", String(repeating: "x", count: 300),
    ]
    static let optionKeys: [String] = [
        "clients", "latencyMinMs", "latencyMaxMs", "dropPpm", "duplicatePpm", "delayPpm", "delayMaxMs", "clockSkewMs",
        "conflictThinkMs", "queueCap", "connectTimeoutMs", "unreachableDetectMs", "settleLimitMs", "maxEvents",
        "sendTimeoutMs", "syncIntervalMs", "saveDelayMinMs", "saveDelayMaxMs",
    ]

    /// Every path in the tree, in document order.
    static func paths(_ n: JSONNode) -> [[JSONPathComponent]] {
        var out: [[JSONPathComponent]] = []
        var work: [(JSONNode, [JSONPathComponent])] = [(n, [])]
        while let (x, p) = work.popLast() {
            out.append(p)
            switch x.value {
            case .object(let ms): for m in ms.reversed() { work.append((m.value, p + [.key(m.key)])) }
            case .array(let xs): for (i, e) in xs.enumerated().reversed() { work.append((e, p + [.index(i)])) }
            default: break
            }
        }
        return out
    }

    /// The tree with the node at `path` replaced by `f(node)` (nil removes it from its parent).
    static func update(_ n: JSONNode, _ path: ArraySlice<JSONPathComponent>, _ f: (JSONNode) -> JSONNode?) -> JSONNode? {
        guard let head = path.first else { return f(n) }
        var n = n
        switch (head, n.value) {
        case (.key(let k), .object(var ms)):
            guard let i = ms.firstIndex(where: { $0.key == k }) else { return n }
            if let v = update(ms[i].value, path.dropFirst(), f) { ms[i].value = v } else { ms.remove(at: i) }
            n.value = .object(ms)
        case (.index(let i), .array(var xs)):
            guard i < xs.count else { return n }
            if let v = update(xs[i], path.dropFirst(), f) { xs[i] = v } else { xs.remove(at: i) }
            n.value = .array(xs)
        default: break
        }
        return n
    }

    static func node(_ v: JSONNode.Value) -> JSONNode { JSONNode(value: v, location: JSONLocation(line: 1, column: 1)) }

    static func mutateTree(_ tree: JSONNode, _ r: inout SimRandom) -> (JSONNode, String) {
        let all = paths(tree)
        let p = all[r.index(all.count)]
        let where_ = JSONPathComponent.render(p)
        let numbers = all.filter { if case .number? = tree.node(at: $0)?.value { return true }; return false }
        let ids = all.filter { if case .key(let k)? = $0.last { return k == "entity" || k == "target" || k == "sub" }; return false }
        switch r.below(15) {
        case 13 where !numbers.isEmpty, 14 where !numbers.isEmpty:  // a `where` binds to one pattern only
            // A nudge: often still valid, so the mutant reaches the simulator.
            let q = numbers[r.index(numbers.count)]
            guard case .number(let t)? = tree.node(at: q)?.value, let v = Int64(t) else { break }
            let w = [v &+ 1, v &- 1, v &* 2, v / 2, v &+ 1_000, 0][r.index(6)]   // wrapping: v may be Int64.max
            return (update(tree, q[...]) { _ in node(.number(String(w))) } ?? tree, "\(JSONPathComponent.render(q)) := \(w) (nudged)")
        case 0 where !numbers.isEmpty:
            let q = numbers[r.index(numbers.count)]
            let v = extremeNumbers[r.index(extremeNumbers.count)]
            return (update(tree, q[...]) { _ in node(.number(v)) } ?? tree, "\(JSONPathComponent.render(q)) := \(v)")
        case 1 where !ids.isEmpty:
            let q = ids[r.index(ids.count)]
            let v = ["50000000", "999999", "1000000", "4294967295", "123456", "0"][r.index(6)]
            return (update(tree, q[...]) { _ in node(.number(v)) } ?? tree, "\(JSONPathComponent.render(q)) := \(v) (huge id)")
        case 2 where !p.isEmpty:
            return (update(tree, p[...]) { _ in nil } ?? tree, "delete \(where_)")
        case 3:
            // Duplicate a key (or an array element) next to itself.
            guard let last = p.last else { break }
            let parent = Array(p.dropLast())
            let t = update(tree, parent[...]) { par in
                var par = par
                switch (last, par.value) {
                case (.key(let k), .object(var ms)):
                    if let i = ms.firstIndex(where: { $0.key == k }) { ms.insert(ms[i], at: i + 1) }
                    par.value = .object(ms)
                case (.index(let i), .array(var xs)) where i < xs.count:
                    xs.insert(xs[i], at: i + 1)
                    par.value = .array(xs)
                default: break
                }
                return par
            } ?? tree
            return (t, "duplicate \(where_)")
        case 4:
            let swaps: [JSONNode.Value] = [.string("x"), .array([]), .object([]), .null, .bool(true), .number("7"), .string(""), .array([node(.number("1"))])]
            let v = swaps[r.index(swaps.count)]
            return (update(tree, p[...]) { _ in node(v) } ?? tree, "\(where_) := \(serialize(node(v)))")
        case 5:
            let depth = [10, 63, 64, 65, 200, 300][r.index(6)]
            return (update(tree, p[...]) { x in
                var y = x
                for _ in 0..<depth { y = node(.array([y])) }
                return y
            } ?? tree, "nest \(where_) \(depth) deep")
        case 6:
            let s = [String(repeating: "x", count: 5_000), String(repeating: "é", count: 300), "a\u{0}b", String(repeating: "\u{0}", count: 100), "\u{7}\u{1b}[31m"][r.index(5)]
            return (update(tree, p[...]) { _ in node(.string(s)) } ?? tree, "\(where_) := a string of \(s.count) characters")
        case 7:
            let s = names[r.index(names.count)]
            return (update(tree, p[...]) { x in if case .string = x.value { return node(.string(s)) }; return x } ?? tree, "\(where_) := \(s.debugDescription) if a string")
        case 8:
            // Reorder: swap two elements of the array holding this node.
            guard case .index(let i)? = p.last else { break }
            let parent = Array(p.dropLast())
            let j = r.index(64)
            let t = update(tree, parent[...]) { par in
                guard case .array(var xs) = par.value, i < xs.count, j < xs.count else { return par }
                xs.swapAt(i, j)
                var par = par
                par.value = .array(xs)
                return par
            } ?? tree
            return (t, "swap \(where_) with [\(j)]")
        case 9:
            // An option at an extreme.
            let k = optionKeys[r.index(optionKeys.count)]
            let v = extremeNumbers[r.index(extremeNumbers.count)]
            let value: JSONNode = k == "clockSkewMs" ? node(.array([node(.number(v)), node(.number(v))])) : node(.number(v))
            let t = update(tree, [][...]) { top in
                guard case .object(var ms) = top.value else { return top }
                if let i = ms.firstIndex(where: { $0.key == "options" }), case .object(var os) = ms[i].value.value {
                    os.removeAll { $0.key == k }
                    os.append(JSONMember(key: k, keyLocation: top.location, value: value))
                    ms[i].value = node(.object(os))
                } else {
                    ms.append(JSONMember(key: "options", keyLocation: top.location, value: node(.object([JSONMember(key: k, keyLocation: top.location, value: value)]))))
                }
                var top = top
                top.value = .object(ms)
                return top
            } ?? tree
            return (t, "options.\(k) := \(v)")
        case 10:
            // Many copies of the actions: a larger file.
            let t = update(tree, [.key("actions")][...]) { a in
                guard case .array(let xs) = a.value else { return a }
                let times = [10, 100, 1_000][r.index(3)]
                var ys: [JSONNode] = []
                for _ in 0..<times { ys += xs }
                return node(.array(ys))
            } ?? tree
            return (t, "repeat the actions")
        case 11:
            // A typing burst at extremes.
            let text = [String(repeating: "a", count: 256), String(repeating: "a", count: 257), String(repeating: "🙂", count: 300), "x"][r.index(4)]
            let every = ["0", "60000", "60001", "-1", "86400000"][r.index(5)]
            let at = ["0", "86399999", "86400000"][r.index(3)]
            let t = update(tree, [.key("actions")][...]) { a in
                guard case .array(var xs) = a.value else { return a }
                let typing = node(.object([
                    JSONMember(key: "at", keyLocation: a.location, value: node(.number(at))),
                    JSONMember(key: "do", keyLocation: a.location, value: node(.string("type"))),
                    JSONMember(key: "client", keyLocation: a.location, value: node(.string("A"))),
                    JSONMember(key: "entity", keyLocation: a.location, value: node(.number("1"))),
                    JSONMember(key: "field", keyLocation: a.location, value: node(.string("title"))),
                    JSONMember(key: "text", keyLocation: a.location, value: node(.string(text))),
                    JSONMember(key: "everyMs", keyLocation: a.location, value: node(.number(every))),
                ]))
                xs.append(typing)
                return node(.array(xs))
            } ?? tree
            return (t, "append type \(text.count) chars every \(every) ms at \(at)")
        default:
            break
        }
        // Fallback: a number somewhere to an extreme, or the whole value deleted.
        return (update(tree, p[...]) { _ in node(.number("-1")) } ?? tree, "\(where_) := -1")
    }

    /// Compact JSON text for a tree (strings escaped as JSON requires).
    static func serialize(_ n: JSONNode) -> String {
        var out = ""
        write(n, &out)
        return out
    }

    static func write(_ n: JSONNode, _ out: inout String) {
        switch n.value {
        case .object(let ms):
            out += "{"
            for (i, m) in ms.enumerated() {
                if i > 0 { out += "," }
                writeString(m.key, &out); out += ":"; write(m.value, &out)
            }
            out += "}"
        case .array(let xs):
            out += "["
            for (i, x) in xs.enumerated() { if i > 0 { out += "," }; write(x, &out) }
            out += "]"
        case .string(let s): writeString(s, &out)
        case .number(let t): out += t
        case .bool(let b): out += b ? "true" : "false"
        case .null: out += "null"
        }
    }

    static func writeString(_ s: String, _ out: inout String) {
        out += "\""
        for u in s.unicodeScalars {
            switch u {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            default:
                if u.value < 0x20 { out += String(format: "\\u%04x", u.value) } else { out.unicodeScalars.append(u) }
            }
        }
        out += "\""
    }
}

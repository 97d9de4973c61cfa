/// What one message carries, read back from its story sentence, for the arrow labels of a
/// sequence diagram: the write ids (`w3`), the entities with the fields it sets (`todo#7{done}`)
/// and the transaction (`tx 2`).
///
/// Why parse text: a message is a strategy's own type (a user strategy's too), and the trace
/// keeps only its kind and its description. The description is written with the same
/// `CustomStringConvertible` forms everywhere (`WriteID` prints `w3`, an entity `todo#7`, an
/// assignment `{done = true}`, a link `post#4.author → profile#1`), so the ids a reader needs can
/// be picked out of it without asking the strategy. Quoted values are skipped (a user may type
/// `w1` into a title). A description that uses none of these forms gives just the kind, as
/// before; the full sentence stays in the arrow's tooltip either way.
struct MessageSummary: Equatable {
    /// Write ids in order of first mention.
    var writes: [String] = []
    /// Entities (`todo#7`) in order of first mention, each with the fields named next to it.
    var entities: [(name: String, fields: [String])] = []
    /// The transaction id, when the message names one (`tx 2`, `tx-id 2`).
    var tx: Int?
    /// Entities the message deletes (`delete todo#7`).
    var deleted: [String] = []

    static func == (a: MessageSummary, b: MessageSummary) -> Bool {
        a.writes == b.writes && a.tx == b.tx && a.deleted == b.deleted && a.entities.map(\.name) == b.entities.map(\.name)
            && a.entities.map(\.fields) == b.entities.map(\.fields)
    }

    init(writes: [String], entities: [(name: String, fields: [String])], tx: Int?) {
        self.writes = writes
        self.entities = entities
        self.tx = tx
    }

    /// Reads `text` (the whole story line; everything before `kind`'s first occurrence, the
    /// sender and receiver, is ignored).
    init(text: String, kind: String) {
        var body = Substring(text)
        if !kind.isEmpty, let r = body.range(of: kind) { body = body[r.upperBound...] }
        let tokens = MessageSummary.tokens(body)
        var i = 0
        while i < tokens.count {
            let t = tokens[i]
            if MessageSummary.isWriteID(t), !writes.contains(t) {
                writes.append(t)
            } else if (t == "tx" || t == "tx-id"), i + 1 < tokens.count, let n = Int(tokens[i + 1]), tx == nil {
                tx = n
                i += 1
            } else if let hash = t.firstIndex(of: "#"), hash > t.startIndex, Int(t[t.index(after: hash)...]) != nil,
                      t[..<hash].allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" }) {
                // An entity. Fields: a `.field` right after it, or `{a = …, b = …}` that follows.
                // `delete todo#7`: the verb says more than a field list would.
                if i > 0, tokens[i - 1] == "delete", !deleted.contains(t) { deleted.append(t) }
                var fields: [String] = []
                if i + 1 < tokens.count, tokens[i + 1].hasPrefix(".") { fields.append(String(tokens[i + 1].dropFirst())); i += 1 }
                if i + 1 < tokens.count, tokens[i + 1] == "{" {
                    var j = i + 2
                    while j < tokens.count, tokens[j] != "}" {
                        if j + 1 < tokens.count, tokens[j + 1] == "=", !fields.contains(tokens[j]) { fields.append(tokens[j]) }
                        j += 1
                    }
                    i = j
                }
                if let k = entities.firstIndex(where: { $0.name == t }) {
                    for f in fields where !entities[k].fields.contains(f) { entities[k].fields.append(f) }
                } else {
                    entities.append((t, fields))
                }
            }
            i += 1
        }
    }

    /// `w12`: a write id as `WriteID` prints it.
    static func isWriteID(_ t: String) -> Bool {
        t.count >= 2 && t.first == "w" && t.dropFirst().allSatisfy(\.isASCII) && Int(t.dropFirst()) != nil
    }

    /// Splits a description into words (`todo#7`, `w3`, `tx-id`, `12`), `.field` suffixes, and the
    /// punctuation the parser needs (`{`, `}`, `=`); quoted strings are dropped.
    static func tokens(_ s: Substring) -> [String] {
        var out: [String] = []
        var word = ""
        var inQuote = false, escaped = false
        func flush() { if !word.isEmpty { out.append(word); word = "" } }
        for ch in s {
            if inQuote {
                if escaped { escaped = false } else if ch == "\\" { escaped = true } else if ch == "\"" { inQuote = false }
                continue
            }
            switch ch {
            case "\"": flush(); inQuote = true
            case "{", "}", "=": flush(); out.append(String(ch))
            case ".":
                // `post#4.author`: the field after a dot becomes its own `.author` token.
                flush(); word = "."
            default:
                if ch.isLetter || ch.isNumber || ch == "_" || ch == "#" || (ch == "-" && !word.isEmpty) {
                    word.append(ch)
                } else {
                    flush()
                }
            }
        }
        flush()
        return out.filter { $0 != "." }
    }

    /// The short arrow label: the kind, then the writes (at most two, then `+n`), then the first
    /// deleted entity (`del todo#7 +2`), else the one entity with its fields, else the number of
    /// entities (`3 entities`); the transaction only when no write is named (an acknowledgement
    /// by transaction). At most `limit` characters.
    func label(kind: String, limit: Int = 34) -> String {
        var parts = [kind]
        if !writes.isEmpty {
            parts.append(writes.prefix(2).joined(separator: ",") + (writes.count > 2 ? "+\(writes.count - 2)" : ""))
        } else if let tx {
            parts.append("tx\(tx)")
        }
        if let d = deleted.first {
            // A delete is the story whatever else rides along (a diff's save sends every entity).
            parts.append("del " + d + (entities.count > 1 ? " +\(entities.count - 1)" : ""))
        } else if entities.count == 1, let e = entities.first {
            parts.append(e.fields.isEmpty ? e.name : e.name + "{" + e.fields.prefix(2).joined(separator: ",") + (e.fields.count > 2 ? ",…" : "") + "}")
        } else if entities.count > 1 {
            parts.append("\(entities.count) entities")
        }
        return clip(parts.joined(separator: " "), limit)
    }
}

/// `s` cut to at most `n` characters, ending in `…` when cut.
func clip(_ s: String, _ n: Int) -> String {
    guard n > 0 else { return "" }
    return s.count <= n ? s : String(s.prefix(max(0, n - 1))) + "…"
}

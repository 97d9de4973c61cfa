/// The JSON form of a schema, as embedded in scenario files (documented in `Scenarios/README.md`):
///
///     {"name": "notes",
///      "namespaces": [{"name": "notes", "singular": "note",
///                      "fields": [{"name": "title", "type": "string"},
///                                 {"name": "pinned", "type": "bool", "initial": false}]},
///                     {"name": "tags", "singular": "tag", "fields": [{"name": "label", "type": "string"}]}],
///      "links": [{"name": "tags", "from": "notes", "to": "tags", "cardinality": "many", "reverse": "notes"}]}
///
/// Arrays, not objects, so declaration order (which fixes the ids) survives any JSON library.
/// Every check of `Schema.init` applies; a failure names its JSON path inside `schema`.
struct SchemaDeclaration: Codable {
    var schema: Schema
    init(_ schema: Schema) { self.schema = schema }

    struct FieldDecl: Codable {
        var name: String
        var type: FieldKind
        var initial: FieldValue?
    }

    struct NamespaceDecl: Codable {
        var name: String
        var singular: String?
        var fields: [FieldDecl]
    }

    struct LinkDecl: Codable {
        var name: String
        var from: String
        var to: String
        var cardinality: Schema.Cardinality?
        var reverse: String
    }

    enum K: String, CodingKey { case name, namespaces, links }

    init(from decoder: Decoder) throws {
        try rejectUnknownKeys(decoder, allowed: ["name", "namespaces", "links"])
        let c = try decoder.container(keyedBy: K.self)
        let name = try c.decode(String.self, forKey: .name)
        var nsc = try c.nestedUnkeyedContainer(forKey: .namespaces)
        var namespaces: [Schema.Namespace] = []
        while !nsc.isAtEnd {
            guard namespaces.count < Schema.Limits.namespaces else {
                throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [K.namespaces],
                    debugDescription: "at most \(Schema.Limits.namespaces) namespaces"))
            }
            let d = try nsc.superDecoder()
            try rejectUnknownKeys(d, allowed: ["name", "singular", "fields"])
            let n = try NamespaceDecl(from: d)
            namespaces.append(Schema.Namespace(n.name, singular: n.singular ?? n.name,
                fields: n.fields.map { Schema.Field($0.name, $0.type, initialValue: $0.initial) }))
        }
        var links: [Schema.Link] = []
        if c.contains(.links) {
            var lc = try c.nestedUnkeyedContainer(forKey: .links)
            while !lc.isAtEnd {
                guard links.count < Schema.Limits.links else {
                    throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + [K.links],
                        debugDescription: "at most \(Schema.Limits.links) links"))
                }
                let d = try lc.superDecoder()
                try rejectUnknownKeys(d, allowed: ["name", "from", "to", "cardinality", "reverse"])
                let l = try LinkDecl(from: d)
                links.append(Schema.Link(l.name, from: l.from, to: l.to, cardinality: l.cardinality ?? .one, reverseName: l.reverse))
            }
        }
        do {
            schema = try Schema(name: name, namespaces: namespaces, links: links)
        } catch let e as SchemaError {
            throw DecodingError.dataCorrupted(.init(codingPath: decoder.codingPath + Self.keys(e.path), debugDescription: e.message))
        }
    }

    /// `namespaces[1].fields[0].name` as coding keys, so the error path reads the same.
    static func keys(_ path: String) -> [CodingKey] {
        var out: [CodingKey] = []
        for part in path.split(separator: ".") {
            var p = Substring(part)
            if let b = p.firstIndex(of: "[") {
                out.append(AnyKey(String(p[..<b])))
                p = p[b...]
                while p.hasPrefix("["), let e = p.firstIndex(of: "]") {
                    if let i = Int(p[p.index(after: p.startIndex)..<e]) { out.append(AnyKey(intValue: i)!) }
                    p = p[p.index(after: e)...]
                }
            } else {
                out.append(AnyKey(String(p)))
            }
        }
        return out
    }

    func encode(to encoder: Encoder) throws {
        var c = encoder.container(keyedBy: K.self)
        try c.encode(schema.name, forKey: .name)
        try c.encode(schema.declaredNamespaces.map { ns in
            NamespaceDecl(name: ns.name, singular: ns.singular, fields: ns.fields.map { FieldDecl(name: $0.name, type: $0.kind, initial: $0.initialValue) })
        }, forKey: .namespaces)
        if !schema.declaredLinks.isEmpty {
            try c.encode(schema.declaredLinks.map { LinkDecl(name: $0.name, from: $0.from, to: $0.to, cardinality: $0.cardinality, reverse: $0.reverseName) }, forKey: .links)
        }
    }
}

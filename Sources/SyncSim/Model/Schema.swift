/// A data model: namespaces with typed fields, and links between namespaces. A value, declared in
/// Swift by a strategy author (or embedded in a scenario file), with todos/profiles/posts as
/// `Schema.default`.
///
/// Inside a simulation every namespace, field and link is a small integer id, so the hot loop
/// never hashes text. Ids are numbered by declaration: namespaces in order; fields globally, each
/// namespace's fields contiguous (so a namespace's fields are an id range, `FieldList`, without
/// storage); links globally, grouped by their source namespace (likewise `LinkList`). A record
/// has one slot per field id and per link id, which keeps records of every namespace one size.
///
/// Semantics (a field's kind, a link's ends, a namespace's fields) are read from the schema value
/// a machine was given, never from global state. Only human-readable text (`description`s of ids,
/// ops and messages) reads `Schema.describing`, a task-local the simulator, the scenario decoder
/// and the renderers set to the schema of what they describe.
public struct Schema: Sendable, Hashable {
    /// How many targets a link holds.
    public enum Cardinality: String, Sendable, Codable, Hashable {
        /// One target; `link` replaces it (`post.author`).
        case one
        /// A set of targets; `link` adds one, `unlink` removes one (`note.tags`).
        case many
    }

    /// A field as declared.
    public struct Field: Sendable, Hashable {
        public var name: String
        public var kind: FieldKind
        /// The value generated entities start with (strings are drawn instead). Default: `0`, `false`.
        public var initialValue: FieldValue?
        public init(_ name: String, _ kind: FieldKind, initialValue: FieldValue? = nil) {
            self.name = name
            self.kind = kind
            self.initialValue = initialValue
        }
        public static func string(_ name: String) -> Field { Field(name, .string) }
        public static func int(_ name: String, initialValue: Int? = nil) -> Field { Field(name, .int, initialValue: initialValue.map(FieldValue.int)) }
        public static func bool(_ name: String, initialValue: Bool? = nil) -> Field { Field(name, .bool, initialValue: initialValue.map(FieldValue.bool)) }
    }

    /// A namespace as declared: a plural name (`todos`), the singular used in stories (`todo#3`),
    /// and its fields in order.
    public struct Namespace: Sendable, Hashable {
        public var name: String
        public var singular: String
        public var fields: [Field]
        public init(_ name: String, singular: String, fields: [Field]) {
            self.name = name
            self.singular = singular
            self.fields = fields
        }
    }

    /// A link as declared: `post.author → profile`, readable backwards as `profile.posts`.
    public struct Link: Sendable, Hashable {
        public var name: String
        public var from: String
        public var to: String
        public var cardinality: Cardinality
        /// The name of the reverse view on the target namespace (`posts` on profiles).
        public var reverseName: String
        public init(_ name: String, from: String, to: String, cardinality: Cardinality = .one, reverseName: String) {
            self.name = name
            self.from = from
            self.to = to
            self.cardinality = cardinality
            self.reverseName = reverseName
        }
    }

    /// Limits, so that ids stay small integers and a hostile file cannot make records huge.
    public enum Limits {
        public static let namespaces = 32
        public static let fields = 128
        public static let links = 32
        public static let nameLength = 40
    }

    /// Every table of the schema behind one reference. Why: a schema is a value that every
    /// machine, context and client holds, and copies of it are made in hot paths (a record's
    /// initialiser took one per blank record; task-local reads, contexts, generic copies of
    /// machines); with its twenty-odd arrays and strings inline, each copy cost as many retains
    /// and releases (~500 instructions to copy, ~400 to destroy). Immutable once built, so one
    /// reference stands for the value: a copy is one retain.
    @usableFromInline final class Tables: Sendable {
        @usableFromInline let name: String
        @usableFromInline let declaredNamespaces: [Namespace]
        @usableFromInline let declaredLinks: [Link]
        // Flat tables indexed by id: what the hot loop reads.
        @usableFromInline let nsNames: [String]
        @usableFromInline let nsSingulars: [String]
        @usableFromInline let nsFieldLower: [UInt8]
        @usableFromInline let nsFieldUpper: [UInt8]
        @usableFromInline let nsLinkLower: [UInt8]
        @usableFromInline let nsLinkUpper: [UInt8]
        @usableFromInline let fieldNames: [String]
        @usableFromInline let fieldKinds: [FieldKind]
        @usableFromInline let fieldNamespaces: [NamespaceID]
        @usableFromInline let fieldInitials: [FieldValue?]
        @usableFromInline let linkNames: [String]
        @usableFromInline let linkReverseNames: [String]
        @usableFromInline let linkFrom: [NamespaceID]
        @usableFromInline let linkTo: [NamespaceID]
        @usableFromInline let linkMany: [Bool]
        @usableFromInline let hasManyLinks: Bool

        init(name: String, declaredNamespaces: [Namespace], declaredLinks: [Link], nsNames: [String], nsSingulars: [String],
             nsFieldLower: [UInt8], nsFieldUpper: [UInt8], nsLinkLower: [UInt8], nsLinkUpper: [UInt8],
             fieldNames: [String], fieldKinds: [FieldKind], fieldNamespaces: [NamespaceID], fieldInitials: [FieldValue?],
             linkNames: [String], linkReverseNames: [String], linkFrom: [NamespaceID], linkTo: [NamespaceID], linkMany: [Bool]) {
            self.name = name
            self.declaredNamespaces = declaredNamespaces
            self.declaredLinks = declaredLinks
            self.nsNames = nsNames
            self.nsSingulars = nsSingulars
            self.nsFieldLower = nsFieldLower
            self.nsFieldUpper = nsFieldUpper
            self.nsLinkLower = nsLinkLower
            self.nsLinkUpper = nsLinkUpper
            self.fieldNames = fieldNames
            self.fieldKinds = fieldKinds
            self.fieldNamespaces = fieldNamespaces
            self.fieldInitials = fieldInitials
            self.linkNames = linkNames
            self.linkReverseNames = linkReverseNames
            self.linkFrom = linkFrom
            self.linkTo = linkTo
            self.linkMany = linkMany
            hasManyLinks = linkMany.contains(true)
        }
    }

    @usableFromInline let tables: Tables

    /// The schema's name: how scenario files and reports refer to it (`"schema": "todos"`).
    public var name: String { tables.name }
    /// The declaration, kept for encoding and for `==` (two schemas are equal if declared equal).
    public var declaredNamespaces: [Namespace] { tables.declaredNamespaces }
    public var declaredLinks: [Link] { tables.declaredLinks }

    @inlinable var nsNames: [String] { tables.nsNames }
    @inlinable var nsSingulars: [String] { tables.nsSingulars }
    @inlinable var nsFieldLower: [UInt8] { tables.nsFieldLower }
    @inlinable var nsFieldUpper: [UInt8] { tables.nsFieldUpper }
    @inlinable var nsLinkLower: [UInt8] { tables.nsLinkLower }
    @inlinable var nsLinkUpper: [UInt8] { tables.nsLinkUpper }
    @inlinable var fieldNames: [String] { tables.fieldNames }
    @inlinable var fieldKinds: [FieldKind] { tables.fieldKinds }
    @inlinable var fieldNamespaces: [NamespaceID] { tables.fieldNamespaces }
    @inlinable var fieldInitials: [FieldValue?] { tables.fieldInitials }
    @inlinable var linkNames: [String] { tables.linkNames }
    @inlinable var linkReverseNames: [String] { tables.linkReverseNames }
    @inlinable var linkFrom: [NamespaceID] { tables.linkFrom }
    @inlinable var linkTo: [NamespaceID] { tables.linkTo }
    @inlinable var linkMany: [Bool] { tables.linkMany }
    /// True if any link has cardinality many (records then carry target sets).
    @inlinable public var hasManyLinks: Bool { tables.hasManyLinks }

    /// Declares a schema. Every name is checked: identifiers of at most `Limits.nameLength`
    /// characters; namespace names unique; field names unique across the schema (a patch names its
    /// fields without naming the namespace); link names unique; a namespace's reverse views named
    /// apart from each other and from its own links (a query's `include` names either).
    public init(name: String, namespaces: [Namespace], links: [Link] = []) throws {
        func fail(_ path: String, _ message: String) -> SchemaError { SchemaError(path: path, message: message) }
        guard Self.isIdentifier(name) else { throw fail("name", "expected an identifier (letters, digits, _; at most \(Limits.nameLength) characters), got '\(Self.clip(name))'") }
        guard !namespaces.isEmpty else { throw fail("namespaces", "a schema needs at least one namespace") }
        guard namespaces.count <= Limits.namespaces else { throw fail("namespaces", "at most \(Limits.namespaces) namespaces, got \(namespaces.count)") }
        let fieldTotal = namespaces.reduce(0) { $0 + $1.fields.count }
        guard fieldTotal <= Limits.fields else { throw fail("namespaces", "at most \(Limits.fields) fields in all, got \(fieldTotal)") }
        guard links.count <= Limits.links else { throw fail("links", "at most \(Limits.links) links, got \(links.count)") }
        var taken: [String: String] = [:]
        func claim(_ n: String, _ path: String, _ what: String) throws {
            guard Self.isIdentifier(n) else { throw fail(path, "expected an identifier (letters, digits, _; at most \(Limits.nameLength) characters), got '\(Self.clip(n))'") }
            if let other = taken[what + ":" + n] { throw fail(path, "the \(what) name '\(n)' is already used at \(other); \(what) names are unique across a schema") }
            taken[what + ":" + n] = path
        }
        var nsNames: [String] = [], nsSingulars: [String] = [], lower: [UInt8] = [], upper: [UInt8] = []
        var fieldNames: [String] = [], kinds: [FieldKind] = [], fieldNs: [NamespaceID] = [], initials: [FieldValue?] = []
        for (i, ns) in namespaces.enumerated() {
            try claim(ns.name, "namespaces[\(i)].name", "namespace")
            guard Self.isIdentifier(ns.singular) else { throw fail("namespaces[\(i)].singular", "expected an identifier, got '\(Self.clip(ns.singular))'") }
            nsNames.append(ns.name)
            nsSingulars.append(ns.singular)
            lower.append(UInt8(fieldNames.count))
            for (j, f) in ns.fields.enumerated() {
                try claim(f.name, "namespaces[\(i)].fields[\(j)].name", "field")
                if let v = f.initialValue, v.kind != f.kind {
                    throw fail("namespaces[\(i)].fields[\(j)].initialValue", "expected a \(f.kind) value, got \(v)")
                }
                fieldNames.append(f.name)
                kinds.append(f.kind)
                fieldNs.append(NamespaceID(UInt8(i)))
                initials.append(f.initialValue)
            }
            upper.append(UInt8(fieldNames.count))
        }
        // Links get ids grouped by source namespace (stable within one), so each namespace's
        // outgoing links are a contiguous id range.
        var resolved: [(from: Int, to: Int, decl: Link, index: Int)] = []
        for (i, l) in links.enumerated() {
            try claim(l.name, "links[\(i)].name", "link")
            guard let f = nsNames.firstIndex(of: l.from) else { throw fail("links[\(i)].from", "unknown namespace '\(Self.clip(l.from))'; expected one of: \(nsNames.joined(separator: ", "))") }
            guard let t = nsNames.firstIndex(of: l.to) else { throw fail("links[\(i)].to", "unknown namespace '\(Self.clip(l.to))'; expected one of: \(nsNames.joined(separator: ", "))") }
            guard Self.isIdentifier(l.reverseName) else { throw fail("links[\(i)].reverseName", "expected an identifier, got '\(Self.clip(l.reverseName))'") }
            resolved.append((f, t, l, i))
        }
        for (a, x) in resolved.enumerated() {
            for y in resolved[..<a] where y.to == x.to && y.decl.reverseName == x.decl.reverseName {
                throw fail("links[\(x.index)].reverseName", "'\(x.decl.reverseName)' is already the reverse name of link '\(y.decl.name)' on \(nsNames[x.to])")
            }
            for y in resolved where y.from == x.to && y.decl.name == x.decl.reverseName {
                throw fail("links[\(x.index)].reverseName", "'\(x.decl.reverseName)' is already the name of a link from \(nsNames[x.to]); a query could not tell them apart")
            }
        }
        resolved.sort { ($0.from, $0.index) < ($1.from, $1.index) }
        var lLower = [UInt8](repeating: 0, count: namespaces.count), lUpper = [UInt8](repeating: 0, count: namespaces.count)
        for n in 0..<namespaces.count {
            lLower[n] = UInt8(resolved.firstIndex { $0.from >= n } ?? resolved.count)
            lUpper[n] = UInt8(resolved.firstIndex { $0.from > n } ?? resolved.count)
        }
        tables = Tables(name: name, declaredNamespaces: namespaces, declaredLinks: resolved.map(\.decl),
                        nsNames: nsNames, nsSingulars: nsSingulars, nsFieldLower: lower, nsFieldUpper: upper,
                        nsLinkLower: lLower, nsLinkUpper: lUpper, fieldNames: fieldNames, fieldKinds: kinds,
                        fieldNamespaces: fieldNs, fieldInitials: initials, linkNames: resolved.map(\.decl.name),
                        linkReverseNames: resolved.map(\.decl.reverseName),
                        linkFrom: resolved.map { NamespaceID(UInt8($0.from)) }, linkTo: resolved.map { NamespaceID(UInt8($0.to)) },
                        linkMany: resolved.map { $0.decl.cardinality == .many })
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard !s.isEmpty, s.utf8.count <= Limits.nameLength, let first = s.unicodeScalars.first else { return false }
        func letter(_ c: Unicode.Scalar) -> Bool { (c >= "a" && c <= "z") || (c >= "A" && c <= "Z") || c == "_" }
        return letter(first) && s.unicodeScalars.allSatisfy { letter($0) || ($0 >= "0" && $0 <= "9") }
    }

    static func clip(_ s: String) -> String { s.count <= 60 ? s : String(s.prefix(57)) + "…" }

    public static func == (a: Schema, b: Schema) -> Bool {
        if a.tables === b.tables { return true }
        return a.name == b.name && a.declaredNamespaces == b.declaredNamespaces && a.declaredLinks == b.declaredLinks
    }

    public func hash(into h: inout Hasher) {
        h.combine(name)
        h.combine(declaredNamespaces)
        h.combine(declaredLinks)
    }

    // MARK: - Counts and id ranges

    public var namespaceCount: Int { nsNames.count }
    public var fieldCount: Int { fieldNames.count }
    public var linkCount: Int { linkNames.count }

    /// Every namespace id, in declaration order.
    public var namespaceIDs: [NamespaceID] { (0..<nsNames.count).map { NamespaceID(UInt8($0)) } }
    /// Every link id, in id order.
    public var linkIDs: [LinkID] { (0..<linkNames.count).map { LinkID(UInt8($0)) } }

    @inlinable public func contains(_ ns: NamespaceID) -> Bool { Int(ns.raw) < nsNames.count }
    @inlinable public func contains(_ f: FieldID) -> Bool { Int(f.raw) < fieldKinds.count }
    @inlinable public func contains(_ l: LinkID) -> Bool { Int(l.raw) < linkFrom.count }

    // MARK: - Semantics (callers check `contains` first for ids from outside)

    /// The fields of a namespace, as an id range without storage.
    @inlinable public func fields(of ns: NamespaceID) -> FieldList {
        FieldList(lower: nsFieldLower[Int(ns.raw)], upper: nsFieldUpper[Int(ns.raw)])
    }
    /// The links whose source is `ns`, as an id range.
    @inlinable public func links(of ns: NamespaceID) -> LinkList {
        LinkList(lower: nsLinkLower[Int(ns.raw)], upper: nsLinkUpper[Int(ns.raw)])
    }
    /// The links whose target is `ns` (their reverse views), in id order.
    public func incomingLinks(of ns: NamespaceID) -> [LinkID] { linkIDs.filter { linkTo[Int($0.raw)] == ns } }
    @inlinable public func kind(of f: FieldID) -> FieldKind { fieldKinds[Int(f.raw)] }
    @inlinable public func namespace(of f: FieldID) -> NamespaceID { fieldNamespaces[Int(f.raw)] }
    public func initialValue(of f: FieldID) -> FieldValue? { fieldInitials[Int(f.raw)] }
    @inlinable public func source(of l: LinkID) -> NamespaceID { linkFrom[Int(l.raw)] }
    @inlinable public func target(of l: LinkID) -> NamespaceID { linkTo[Int(l.raw)] }
    @inlinable public func cardinality(of l: LinkID) -> Cardinality { linkMany[Int(l.raw)] ? .many : .one }
    @inlinable public func isMany(_ l: LinkID) -> Bool { linkMany[Int(l.raw)] }

    // MARK: - Names

    public func name(of ns: NamespaceID) -> String { contains(ns) ? nsNames[Int(ns.raw)] : "namespace\(ns.raw)" }
    public func singular(of ns: NamespaceID) -> String { contains(ns) ? nsSingulars[Int(ns.raw)] : "namespace\(ns.raw)" }
    public func name(of f: FieldID) -> String { contains(f) ? fieldNames[Int(f.raw)] : "field\(f.raw)" }
    public func name(of l: LinkID) -> String { contains(l) ? linkNames[Int(l.raw)] : "link\(l.raw)" }
    public func reverseName(of l: LinkID) -> String { contains(l) ? linkReverseNames[Int(l.raw)] : "reverse\(l.raw)" }

    public func namespace(named n: String) -> NamespaceID? { nsNames.firstIndex(of: n).map { NamespaceID(UInt8($0)) } }
    public func field(named n: String, in ns: NamespaceID? = nil) -> FieldID? {
        guard let i = fieldNames.firstIndex(of: n) else { return nil }
        let f = FieldID(UInt8(i))
        if let ns, fieldNamespaces[i] != ns { return nil }
        return f
    }
    public func link(named n: String) -> LinkID? { linkNames.firstIndex(of: n).map { LinkID(UInt8($0)) } }
    /// The link whose reverse view on `ns` is called `n` (`posts` on profiles).
    public func link(reverseNamed n: String, on ns: NamespaceID) -> LinkID? {
        linkIDs.first { linkReverseNames[Int($0.raw)] == n && linkTo[Int($0.raw)] == ns }
    }
    public var namespaceNames: [String] { nsNames }
    public var allFieldNames: [String] { fieldNames }
    public var allLinkNames: [String] { linkNames }

    // MARK: - The default schema and the describing context

    /// todos, profiles and posts with `post.author → profile` (reverse `profile.posts`): what the
    /// seed documents need — `todos` for seed 000's merge, LWW and typing cases, `profiles` and
    /// `posts` for seed 001's ghost deletion and linked traversal. Its ids are the static
    /// constants `NamespaceID.todos`, `FieldID.title`, `LinkID.author`, …
    public static let `default`: Schema = try! Schema(
        name: "todos",
        namespaces: [
            Namespace("todos", singular: "todo", fields: [.string("title"), .bool("done", initialValue: false), .int("priority", initialValue: 1)]),
            Namespace("profiles", singular: "profile", fields: [.string("name"), .string("bio")]),
            Namespace("posts", singular: "post", fields: [.string("content"), .int("likes", initialValue: 0)]),
        ],
        links: [Link("author", from: "posts", to: "profiles", cardinality: .one, reverseName: "posts")])

    /// The schema that human-readable text names things by (`todo#3 {title = "Te"}`). Set by the
    /// simulator for the length of a run, by the scenario decoder and by renderers; read only by
    /// `description`s, never by semantics. Outside any of those it is `Schema.default`.
    @TaskLocal public static var describing: Schema = .default

    /// Schemas that scenario files may name instead of embedding (`"schema": "notes"`), besides
    /// `Schema.default`. The CLI sets it to the schemas of the strategies it was given.
    @TaskLocal public static var known: [Schema] = []

    /// A known schema by name (the default one and the built-in `blog` included; a user's
    /// schema of the same name wins).
    public static func named(_ name: String) -> Schema? {
        if name == Schema.default.name { return .default }
        return known.first { $0.name == name } ?? builtInNamed.first { $0.name == name }
    }
}

/// A schema declaration that cannot be used: the path inside the declaration and why.
public struct SchemaError: Error, Hashable, Sendable, CustomStringConvertible {
    public var path: String
    public var message: String
    public var description: String { "\(path): \(message)" }
}

public enum FieldKind: String, Sendable, Hashable, Codable, CustomStringConvertible {
    case string, int, bool
    public var description: String { rawValue }
}

/// A namespace (`todos`). Its meaning comes from the schema of the run.
public struct NamespaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: NamespaceID, b: NamespaceID) -> Bool { a.raw < b.raw }

    /// Ids of `Schema.default`.
    public static let todos = NamespaceID(0)
    public static let profiles = NamespaceID(1)
    public static let posts = NamespaceID(2)

    /// The name in `Schema.describing` (human-readable text only).
    public var name: String { Schema.describing.name(of: self) }
    public var singular: String { Schema.describing.singular(of: self) }
    public var description: String { name }
}

/// A scalar attribute; ids are global across namespaces so a record is one fixed-size array.
public struct FieldID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: FieldID, b: FieldID) -> Bool { a.raw < b.raw }

    /// Ids of `Schema.default`.
    public static let title = FieldID(0)
    public static let done = FieldID(1)
    public static let priority = FieldID(2)
    public static let name = FieldID(3)
    public static let bio = FieldID(4)
    public static let content = FieldID(5)
    public static let likes = FieldID(6)

    public var name: String { Schema.describing.name(of: self) }
    public var description: String { name }
}

/// A reference from one namespace to another (cardinality one or many), with a reverse view.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: LinkID, b: LinkID) -> Bool { a.raw < b.raw }

    /// `post.author → profile`; reverse view `profile.posts` (`Schema.default`).
    public static let author = LinkID(0)

    public var name: String { Schema.describing.name(of: self) }
    public var reverseName: String { Schema.describing.reverseName(of: self) }
    public var description: String { name }
}

/// A namespace's fields: a range of field ids, as a collection without storage.
public struct FieldList: RandomAccessCollection, Sendable, Hashable {
    public let lower: UInt8, upper: UInt8
    @inlinable public init(lower: UInt8, upper: UInt8) { self.lower = lower; self.upper = upper }
    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(upper - lower) }
    public subscript(i: Int) -> FieldID { FieldID(lower + UInt8(i)) }
}

/// A namespace's outgoing links, likewise.
public struct LinkList: RandomAccessCollection, Sendable, Hashable {
    public let lower: UInt8, upper: UInt8
    @inlinable public init(lower: UInt8, upper: UInt8) { self.lower = lower; self.upper = upper }
    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(upper - lower) }
    public subscript(i: Int) -> LinkID { LinkID(lower + UInt8(i)) }
}

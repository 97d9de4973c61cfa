/// The fixed data model every strategy syncs: three namespaces, scalar fields and one link.
///
/// A fixed schema keeps every id a small integer known at compile time (fast, no string keys) and
/// covers what the seed documents need: `todos` (the merge/LWW/typing cases of seed 000),
/// `profiles` and `posts` with `post.author → profile` and its reverse view `profile.posts`
/// (the ghost-deletion and linked-traversal cases of seed 001).
public struct NamespaceID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: NamespaceID, b: NamespaceID) -> Bool { a.raw < b.raw }

    public static let todos = NamespaceID(0)
    public static let profiles = NamespaceID(1)
    public static let posts = NamespaceID(2)
    public static let all: [NamespaceID] = [.todos, .profiles, .posts]

    public var name: String { Schema.namespaceNames[Int(raw)] }
    public var singular: String { Schema.singularNames[Int(raw)] }
    public var description: String { name }
    /// The fields of this namespace, in declaration order.
    /// The fields of this namespace: a contiguous id range, so no shared array is touched in hot
    /// loops (global arrays read from several threads make their reference counts contended).
    public var fields: FieldList {
        switch raw {
        case 0: return FieldList(lower: 0, upper: 3)
        case 1: return FieldList(lower: 3, upper: 5)
        default: return FieldList(lower: 5, upper: 7)
        }
    }
    public var links: LinkList { raw == 2 ? LinkList(lower: 0, upper: 1) : LinkList(lower: 0, upper: 0) }

    public init?(name: String) {
        guard let i = Schema.namespaceNames.firstIndex(of: name) else { return nil }
        raw = UInt8(i)
    }
}

public enum FieldKind: Sendable { case string, int, bool }

/// A scalar attribute; ids are global across namespaces so a record is one fixed-size array.
public struct FieldID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: FieldID, b: FieldID) -> Bool { a.raw < b.raw }

    public static let title = FieldID(0)
    public static let done = FieldID(1)
    public static let priority = FieldID(2)
    public static let name = FieldID(3)
    public static let bio = FieldID(4)
    public static let content = FieldID(5)
    public static let likes = FieldID(6)

    public var name: String { Schema.fieldNames[Int(raw)] }
    public var kind: FieldKind {
        switch raw {
        case 1: return .bool
        case 2, 6: return .int
        default: return .string
        }
    }
    public var namespace: NamespaceID { raw < 3 ? .todos : raw < 5 ? .profiles : .posts }
    public var description: String { name }
}

/// A cardinality-one reference from one namespace to another, with a reverse view.
public struct LinkID: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let raw: UInt8
    public init(_ raw: UInt8) { self.raw = raw }
    public static func < (a: LinkID, b: LinkID) -> Bool { a.raw < b.raw }

    /// `post.author → profile`; reverse view `profile.posts`.
    public static let author = LinkID(0)

    public var name: String { Schema.linkNames[Int(raw)] }
    public var reverseName: String { Schema.linkReverseNames[Int(raw)] }
    public var from: NamespaceID { .posts }
    public var to: NamespaceID { .profiles }
    public var description: String { name }
}

public enum Schema {
    public static let namespaceNames = ["todos", "profiles", "posts"]
    public static let singularNames = ["todo", "profile", "post"]
    public static let fieldNames = ["title", "done", "priority", "name", "bio", "content", "likes"]
    public static let fieldKinds: [FieldKind] = [.string, .bool, .int, .string, .string, .string, .int]
    public static let fieldNamespace: [NamespaceID] = [.todos, .todos, .todos, .profiles, .profiles, .posts, .posts]
    public static let fieldsByNamespace: [[FieldID]] = [
        [.title, .done, .priority], [.name, .bio], [.content, .likes],
    ]
    public static let linkNames = ["author"]
    public static let linkReverseNames = ["posts"]
    public static let linkFrom: [NamespaceID] = [.posts]
    public static let linkTo: [NamespaceID] = [.profiles]
    public static let linksByNamespace: [[LinkID]] = [[], [], [.author]]

    public static var fieldCount: Int { 7 }
    public static var linkCount: Int { 1 }

    public static func field(named name: String, in ns: NamespaceID? = nil) -> FieldID? {
        guard let i = fieldNames.firstIndex(of: name) else { return nil }
        let f = FieldID(UInt8(i))
        if let ns, f.namespace != ns { return nil }
        return f
    }

    public static func link(named name: String) -> LinkID? {
        linkNames.firstIndex(of: name).map { LinkID(UInt8($0)) }
    }
}

/// A namespace's fields: a range of field ids, as a collection without storage.
public struct FieldList: RandomAccessCollection, Sendable, Hashable {
    public let lower: UInt8, upper: UInt8
    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(upper - lower) }
    public subscript(i: Int) -> FieldID { FieldID(lower + UInt8(i)) }
}

/// A namespace's links, likewise.
public struct LinkList: RandomAccessCollection, Sendable, Hashable {
    public let lower: UInt8, upper: UInt8
    public var startIndex: Int { 0 }
    public var endIndex: Int { Int(upper - lower) }
    public subscript(i: Int) -> LinkID { LinkID(lower + UInt8(i)) }
}

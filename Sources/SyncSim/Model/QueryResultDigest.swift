/// A query result's digest: one word that stands for its roots and entries in the trace hash.
///
/// Why: a message that carries a result (`add-query-ok`, `refresh-ok`) was hashed into the trace
/// entry by entry, every field of every record, on every send: the trace cost of an event grew
/// with the size of the results, so with the store. The digest is computed once where a result
/// is built (`cacheDigest()`, by the machine that sends it), shared by every copy of the value
/// (every client a result is sent to), and kept up to date by `Query.patch` in the cost of the
/// entries it changes: it is a wrapping sum of one well-mixed term per entry and per root, so an
/// entry that changes, joins or leaves adds and subtracts its own terms, and the order of the
/// entries does not enter (they are ascending and unique in every result a query builds).
/// (The trace hash values changed once, with this definition.)
extension QueryResult {
    /// The digest: cached if known, else computed now (a pass over the entries).
    public var digest: UInt64 {
        // A stale cache would change the trace and, through `==`, the behaviour: debug builds
        // (the tests) check it on every read.
        assert(_digest == nil || _digest == computeDigest(), "stale QueryResult digest")
        return _digest ?? computeDigest()
    }

    /// Computes and keeps the digest, so every later hash of this value (and of its copies)
    /// costs one word. A machine calls it on a result it is about to send.
    public mutating func cacheDigest() {
        if _digest == nil { _digest = computeDigest() }
    }

    /// Whether the digest is known (tests: `Query.patch` keeps it).
    public var hasCachedDigest: Bool { _digest != nil }

    func computeDigest() -> UInt64 {
        var d: UInt64 = 0
        _roots.withUnsafeBufferPointer { rb in
            for k in 0..<rb.count { d &+= Self.rootTerm(rb[k]) }
        }
        _entries.withUnsafeBufferPointer { eb in
            for k in 0..<eb.count { d &+= Self.entryTerm(eb[k].id, eb[k].record) }
        }
        return d
    }

    /// The term of a root (its id, under its own tag so it never equals an entry's).
    @inline(__always)
    static func rootTerm(_ id: EntityID) -> UInt64 {
        var h = StableHasher()
        h.byte(0x52)
        h.combine(id.raw)
        return h.value
    }

    /// The term of an entry: its id and its record's data, mixed to a word.
    @inline(__always)
    static func entryTerm(_ id: EntityID, _ r: EntityRecord) -> UInt64 {
        var h = StableHasher()
        h.byte(0x45)
        h.combine(id.raw)
        r.stableHash(into: &h)
        return h.value
    }
}

/// The namespace each entity has everywhere on one `sharedDiff` client, and with it which steps of
/// a save an overlay may leave out (`Scope`): the steps that cannot change anything its query reads.
///
/// Why: every save is laid over every collection's overlay (`SharedDiffOverlay.lay`), whatever it
/// holds. A save of the todos collection sends every todo, and laid over the overlay of a profiles
/// collection each todo is missing from the store, so each step looked its entity up in the
/// collections, copied the record in, applied the update, marked the slot dirty and touched, and
/// rolled it back at the next new answer: work growing with the todos, on every answer and every
/// save, for a view that reads only profiles (seed 1, swarm, 3,000 actions: 62,000 lookups, most
/// of the overlay upkeep).
///
/// Exact. A view reads only the records of the namespaces its query reads, and of the namespaces
/// their links point to only whether an entity exists and in which namespace
/// (`OverlayStepFilter.namespaces(of:schema:)`, the set `reads`; a record of a read namespace links
/// only to entities of `reads`). The overlay then keeps this invariant against the store laid with
/// every step: the entities of `reads` are the same, with the same values, and those of the read
/// namespaces with the same links too; entities of other namespaces may differ. A step is
///  - left out when all it can do is write an entity of another namespace, or look one up (an
///    update or create of another namespace; a link or unlink whose source, and for a link whose
///    target, is of another namespace);
///  - reduced to its lookup of the target when only that is in `reads` (a post's `author` link laid
///    over a profiles view: the full step takes the author from the collections when the view
///    lacks it, so a deleted profile a stale collection still shows comes back, and so it must
///    here);
///  - taken whole otherwise (a delete always: it is cheap, and it removes its entity in both).
/// A step taken whole is laid as before: what it does to `reads` depends only on entities of
/// `reads` (a link to an entity of another namespace from a read namespace is refused either way).
///
/// Which namespace an entity has comes from what the client was given: every server answer's
/// records, every namespace a user write's create, update or delete names, and every step its
/// saves send (built from those). Entities are never created in two namespaces (a schedule refuses
/// a reused id), so each id has one; but a hostile schedule can name an id with another namespace
/// in an update, and then an entity's namespace depends on where it is read. The first time an id
/// is named with a second namespace, `mixed` is set for good: no overlay leaves anything out any
/// more, and the client drops the overlays built so far (rebuilt in full at their next refresh).
/// An id never named has no record anywhere and is taken as read (the step is taken whole).
///
/// Derived state: never observable, never persisted; `SharedDiffScopeTests` compares every view
/// with one rebuilt from every step.
struct SharedDiffNamespaceClaims {
    /// Per entity slot, its namespace's raw value plus one (0: not named yet).
    private(set) var namespaces: [UInt16] = []
    /// Some id was named with two namespaces: nothing may be left out.
    private(set) var mixed = false

    /// Notes that entity `e` has namespace `ns`. Returns whether this made the claims mixed.
    @inline(__always)
    mutating func claim(_ e: EntityID, _ ns: NamespaceID) -> Bool {
        let i = Int(e.raw), v = UInt16(ns.raw) + 1
        if i >= namespaces.count { namespaces.append(contentsOf: repeatElement(0, count: i - namespaces.count + 1)) }
        if namespaces[i] == v { return false }
        if namespaces[i] == 0 {
            namespaces[i] = v
            return false
        }
        if mixed { return false }
        mixed = true
        return true
    }

    /// Claims the namespace of every record of a server answer. Returns whether this made the
    /// claims mixed.
    ///
    /// The slots are grown once to the answer's largest id and read and written through their
    /// buffer: `claim(_:_:)` per entry checked the array's uniqueness and bounds on every entry
    /// of every answer. The same claims, in the same order.
    mutating func claim(_ r: QueryResult) -> Bool {
        r.entries.withUnsafeBufferPointer { b in
            guard !b.isEmpty else { return false }
            var top = 0
            for k in 0..<b.count { top = max(top, Int(b[k].id.raw)) }
            if top >= namespaces.count { namespaces.append(contentsOf: repeatElement(0, count: top - namespaces.count + 1)) }
            var newly = false
            var mixed = self.mixed
            namespaces.withUnsafeMutableBufferPointer { nb in
                for k in 0..<b.count {
                    let i = Int(b[k].id.raw), v = UInt16(b[k].record.namespace.raw) + 1
                    if nb[i] == v { continue }
                    if nb[i] == 0 {
                        nb[i] = v
                    } else if !mixed {
                        mixed = true
                        newly = true
                    }
                }
            }
            self.mixed = mixed
            return newly
        }
    }

    /// `claim(r)` for the answer that replaces `old` (itself claimed before: every answer is
    /// claimed as it arrives, cached ones when restored): the entries of `r` with the same id,
    /// namespace and record storage as `old`'s entry at the aligned position are passed over,
    /// a block at a time (one `memcmp`) or by their storage words, as `SharedDiffOverlay.rebase`
    /// passes them.
    ///
    /// Why: claims only grow, so claiming again an entity with the namespace it was claimed with
    /// changes nothing and reports nothing; a new answer is the old one patched, and claiming
    /// every entry of every answer was a walk over the whole answer on every answer. The same
    /// claims, in the same order, so the same result. `passedByWords` counts the entries
    /// passed (a test fails if the shortcut stops).
    mutating func claim(_ r: QueryResult, since old: QueryResult?) -> Bool {
        guard let old, let words = QueryResult.Entry.storageWords else { return claim(r) }
        var newly = false
        var overflow = false
        var passed = 0
        var mixed = self.mixed
        r.entries.withUnsafeBufferPointer { b in
            guard let last = b.last else { return }
            // Entries ascend by id: grown to the last one's (an id past it is claimed below).
            let top = Int(last.id.raw)
            if top >= namespaces.count { namespaces.append(contentsOf: repeatElement(0, count: top - namespaces.count + 1)) }
            old.entries.withUnsafeBufferPointer { a in
                namespaces.withUnsafeMutableBufferPointer { nb in
                    var j = 0, k = 0
                    while k < b.count {
                        if j < a.count {
                            let ap = a.baseAddress.unsafelyUnwrapped, bp = b.baseAddress.unsafelyUnwrapped
                            let block = SharedDiffOverlay.rebaseBlock
                            let k0 = k
                            while j + block <= a.count && k + block <= b.count && words.sameBits(ap + j, bp + k, count: block) {
                                j += block
                                k += block
                            }
                            while j < a.count && k < b.count && words.sameStorage(ap + j, bp + k) {
                                j += 1
                                k += 1
                            }
                            passed &+= k - k0
                            if k == b.count { break }
                        }
                        let id = b[k].id
                        while j < a.count && a[j].id < id { j += 1 }
                        if j < a.count && a[j].id == id { j += 1 }
                        let i = Int(id.raw), v = UInt16(b[k].record.namespace.raw) + 1
                        k += 1
                        guard i < nb.count else { overflow = true; continue }
                        if nb[i] == v { continue }
                        if nb[i] == 0 {
                            nb[i] = v
                        } else if !mixed {
                            mixed = true
                            newly = true
                        }
                    }
                }
            }
        }
        self.mixed = mixed
        passedByWords &+= passed
        // An answer whose ids do not ascend: every entry claimed again (no-ops for those done).
        if overflow { return claim(r) || newly }
        return newly
    }

    /// Entries `claim(_:since:)` passed over by their bits or storage words.
    private(set) var passedByWords = 0

    /// Claims the namespace a create, update or delete names (a link names none). Returns whether
    /// this made the claims mixed.
    mutating func claim(_ op: Op) -> Bool {
        switch op {
        case .create(let e, let ns, _), .update(let e, let ns, _), .delete(let e, let ns): return claim(e, ns)
        case .link, .unlink: return false
        }
    }

    /// The scope of an overlay whose query reads `reads` (nil: leave nothing out).
    func scope(reading reads: NamespaceSet) -> Scope? {
        if mixed || reads == .all { return nil }
        return Scope(reads: reads, namespaces: namespaces)
    }

    /// What one overlay may leave out of the saves it lays (see the type's comment).
    struct Scope {
        let reads: NamespaceSet
        let namespaces: [UInt16]

        /// How much of a step the overlay lays.
        enum Reach { case nothing, linkTarget, whole }

        /// Whether entity `e` may be of a namespace in `reads` (an id never named counts as one).
        @inline(__always)
        func inReads(_ e: EntityID) -> Bool {
            let i = Int(e.raw)
            guard i < namespaces.count, namespaces[i] != 0 else { return true }
            return reads.contains(NamespaceID(UInt8(namespaces[i] - 1)))
        }

        @inline(__always)
        func reach(_ op: Op) -> Reach {
            switch op {
            case .create(_, let ns, _), .update(_, let ns, _):
                return reads.contains(ns) ? .whole : .nothing
            case .delete:
                return .whole
            case .link(let e, _, let t):
                if inReads(e) { return .whole }
                return inReads(t) ? .linkTarget : .nothing
            case .unlink(let e, _, _):
                return inReads(e) ? .whole : .nothing
            }
        }
    }
}

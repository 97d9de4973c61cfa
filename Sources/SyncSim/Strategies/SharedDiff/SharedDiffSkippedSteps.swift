/// Which steps of a save `SharedDiffOverlay.lay` can pass over without doing anything, told in
/// one pass over the steps with the store read in place.
///
/// Why: a save sends its whole collection as full entities, and laying it over an overlay that
/// already holds those values writes nothing for almost every step (seed 1, 3,000 actions: 97%
/// of the update, link and unlink steps laid, and most deletes, whose entity is already gone).
/// Each such step still went through `lay`'s general path: a copy of the step's op, `fill`'s
/// test for missing entities, and `changesNothing`, which binds the record (a retain and a
/// release per array it owns) to compare its fields; and every new server answer lays all the
/// visible saves again, so that path ran for every step of every visible save (a quarter of the
/// run). Here a step is passed over only when the general path would neither look anything up
/// (every entity the step needs is in the store: `fill` finds nothing to fill) nor write or note
/// anything (`changesNothing`, or a delete of an entity the store lacks), so `lay` gives the
/// same store, lookups and touched slots.
extension SharedDiffOverlay {
    /// The index of the first step of `steps`, at or after `from`, that `lay` cannot pass over
    /// (`steps.count` when there is none).
    /// With a `scope`, a step it leaves out is passed over too, and a link it reduces to its
    /// target's lookup is passed over when the store holds the target (`SharedDiffNamespaceClaims`).
    static func firstEffective(_ steps: [InstantStep], from: Int, in store: EntityStore, schema: Schema,
                               scope: SharedDiffNamespaceClaims.Scope? = nil) -> Int {
        firstEffective(steps, from: from, to: steps.count, in: store, schema: schema, scope: scope)
    }

    /// `firstEffective` among the steps before `end` (`end` when there is none).
    @inline(__always)
    static func firstEffective(_ steps: [InstantStep], from: Int, to end: Int, in store: EntityStore, schema: Schema,
                               scope: SharedDiffNamespaceClaims.Scope? = nil) -> Int {
        steps.withUnsafeBufferPointer { sb in
            store.records.withUnsafeBufferPointer { rb in
                var j = from
                // One test per step, the step matched once (`passesOver(_:_:_:scope:)`): a second
                // match for the scope copied every step's op.
                while j < end && passesOver(sb[j].op, rb, schema, scope: scope) { j += 1 }
                return j
            }
        }
    }

    /// Whether `lay` would do nothing for `op` over the store whose slots are `rb`: the same
    /// tests as `SharedDiffClient.fill` (nothing missing) and `SharedDiffClient.changesNothing`
    /// (or `delete`'s first guard), reading the records where they are.
    @inline(__always)
    static func passesOver(_ op: Op, _ rb: UnsafeBufferPointer<EntityRecord?>, _ schema: Schema) -> Bool {
        passesOver(op, rb, schema, scope: nil)
    }

    /// `passesOver`, also passing over what a `scope` leaves out of the store: an update or create
    /// of a namespace it does not read, an unlink whose source it does not read, a link neither
    /// of whose ends it reads, and a link of whose ends it reads only the target once the store
    /// holds the target (`SharedDiffNamespaceClaims.Scope.reach`, in the same match).
    @inline(__always)
    static func passesOver(_ op: Op, _ rb: UnsafeBufferPointer<EntityRecord?>, _ schema: Schema,
                           scope: SharedDiffNamespaceClaims.Scope?) -> Bool {
        switch op {
        case .delete(let e, _):
            // `delete` starts with `guard store.contains(e)`.
            return !has(e, rb)
        case .update(let e, let ns, let a):
            if scope != nil, !scope!.reads.contains(ns) { return true }
            // Present (so `fill` looks nothing up) in the same namespace, every assigned field
            // already holding its value (`changesNothing`: an out-of-range field is a change).
            // The record is read through a pointer to it (`OptionalPayload`): `rb[i]?.namespace`
            // followed by `rb[i]!.values` copied the record (a retain and a release per array it
            // owns) and the step's op, for every step of every save laid.
            let i = Int(e.raw)
            guard has(e, rb) else { return false }
            return OptionalPayload.read(rb, i) { HeldAssignments.held(by: $0, ns, a) }
        case .link(let e, let l, let t):
            if scope != nil, !scope!.inReads(e) { return !scope!.inReads(t) || has(t, rb) }
            // `fill` needs both ends; then `changesNothing`: an unknown link is refused, and a
            // link already in place is set again.
            guard has(e, rb), has(t, rb) else { return false }
            guard schema.contains(l) else { return true }
            let i = Int(e.raw), k = Int(l.raw)
            if schema.isMany(l) {
                return OptionalPayload.read(rb, i) { r in
                    r.pointee.manyLinks.withUnsafeBufferPointer { mb in k < mb.count && mb[k].contains(t) }
                }
            }
            return OptionalPayload.read(rb, i) { r in r.pointee.links.withUnsafeBufferPointer { lb in k < lb.count && lb[k] == t } }
        case .unlink(let e, let l, let t):
            if scope != nil, !scope!.inReads(e) { return true }
            // `fill` needs the source; `apply` clears the link only where it points at `t`.
            guard has(e, rb) else { return false }
            return !OptionalPayload.read(rb, Int(e.raw)) { r in r.pointee.points(l, at: t) }
        case .create(_, let ns, _):
            if scope != nil, !scope!.reads.contains(ns) { return true }
            return false
        }
    }

    /// `EntityStore.contains` over the store's slots.
    @inline(__always)
    static func has(_ e: EntityID, _ rb: UnsafeBufferPointer<EntityRecord?>) -> Bool {
        let i = Int(e.raw)
        guard i < rb.count else { return false }
        if case .none = rb[i] { return false }
        return true
    }
}

/// The update step a collection's last saves sent for each entity, with the record it was built
/// from, so the next save reuses the step of every entity whose values did not change.
///
/// Why: a save sends every element of its collection as a full entity (seed 001's "Entire
/// collection"), and building that step cost an array of field assignments (an allocation) and
/// a copy of every value, per element on every save: the largest part of `saveSteps`, growing
/// with the collection (seed 1, swarm, 3,000 actions: 1,870 instructions per element sent).
/// Between two saves almost every element is the same record (the overlay and the views keep
/// untouched records' storage), so the step it gives is the same step.
///
/// Exact by construction: an update step is a pure function of the entity, its record's
/// namespace and its record's values (the schema's fields of that namespace that hold a value,
/// in field order), and a cached step is reused only for an entity whose record has the same
/// namespace and equal values (`sameValues`: one pointer comparison while the storage is
/// shared, else element by element). A stale entry is never wrong, only missed, so the cache
/// needs no invalidation (a deleted entity, a user change, a collection's new answer).
struct SharedDiffStepCache {
    /// Per entity slot, the record the cached step was built from and the step (nil: none).
    var entries: [Entry?] = []

    struct Entry {
        var record: EntityRecord
        var step: InstantStep
    }

    /// The save's update step for entity `e` showing record `r`: the cached one when it was
    /// built from the same namespace and values, else built (`SharedDiffStepCache.build`) and
    /// cached.
    mutating func updateStep(_ e: EntityID, _ r: EntityRecord, schema: Schema) -> InstantStep {
        let i = Int(e.raw)
        if i < entries.count, let hit = Self.cached(entries, i, r) { return hit }
        let step = Self.build(e, r, schema: schema)
        if i >= entries.count { entries.append(contentsOf: repeatElement(nil, count: i - entries.count + 1)) }
        entries[i] = Entry(record: r, step: step)
        return step
    }

    /// The step cached at slot `i` if it was built from `r`'s namespace and values, read in
    /// place (binding the entry copied its record and step).
    @inline(__always)
    static func cached(_ entries: [Entry?], _ i: Int, _ r: EntityRecord) -> InstantStep? {
        entries.withUnsafeBufferPointer { b in
            guard b[i] != nil, b[i]!.record.namespace == r.namespace,
                  sameValues(b[i]!.record.values, r.values) else { return nil }
            return b[i]!.step
        }
    }

    /// `x == y`, told at once when both are the same storage (as `EntityRecord ==` does; a
    /// strategy reads only the public API).
    @inline(__always)
    static func sameValues(_ x: [FieldValue?], _ y: [FieldValue?]) -> Bool {
        if x.count != y.count { return false }
        let shared = x.withUnsafeBufferPointer { p in y.withUnsafeBufferPointer { q in p.baseAddress == q.baseAddress } }
        return shared || x == y
    }

    /// The update step a save sends for entity `e` showing `r`: every field of its namespace
    /// that holds a value, in field order, as an upsert (what `saveSteps` always built).
    static func build(_ e: EntityID, _ r: EntityRecord, schema: Schema) -> InstantStep {
        let own = schema.fields(of: r.namespace)
        var fields: [FieldAssignment] = []
        fields.reserveCapacity(own.count)
        for f in own { if let v = r[f] { fields.append(FieldAssignment(f, v)) } }
        return InstantStep(.update(e, r.namespace, fields), upsert: true)
    }
}

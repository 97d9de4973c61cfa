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
        withUnsafePointer(to: r) { updateStep(e, $0, schema: schema) }
    }

    /// `updateStep(_:_:schema:)` of the entry at `entry` (an element `saveSteps` sends), whose
    /// record lies `recordOffset` bytes in (`SharedDiffStepCache.recordOffset`, read once per
    /// save: a global read per element went through its one-time initialiser's check).
    @inline(__always)
    mutating func updateStep(_ entry: UnsafePointer<QueryResult.Entry>, recordOffset: Int?, schema: Schema) -> InstantStep {
        guard let recordOffset else { return updateStep(entry.pointee.id, entry.pointee.record, schema: schema) }
        let r = (UnsafeRawPointer(entry) + recordOffset).assumingMemoryBound(to: EntityRecord.self)
        return updateStep(entry.pointee.id, r, schema: schema)
    }

    /// Where an entry keeps its record (nil if the layout does not say: then a copy is passed).
    static let recordOffset = MemoryLayout<QueryResult.Entry>.offset(of: \QueryResult.Entry.record)

    /// `updateStep(_:_:schema:)` of the record at `r`, read where it is and copied only into a
    /// new cache entry: `saveSteps` passed each element's record by value, a retain and a
    /// release per element sent on every save.
    mutating func updateStep(_ e: EntityID, _ r: UnsafePointer<EntityRecord>, schema: Schema) -> InstantStep {
        let i = Int(e.raw)
        if i < entries.count {
            switch Self.cached(entries, i, r) {
            case .same(let step):
                return step
            case .equalValues(let step):
                // The same step, now also known by the record's storage: the next save showing
                // this record is told with one comparison instead of comparing every value again.
                entries[i]!.record = r.pointee
                refreshed &+= 1
                return step
            case .miss:
                break
            }
        }
        let step = Self.build(e, r.pointee, schema: schema)
        if i >= entries.count { entries.append(contentsOf: repeatElement(nil, count: i - entries.count + 1)) }
        entries[i] = Entry(record: r.pointee, step: step)
        return step
    }

    /// How many hits compared values (the record in other storage) and took the shown record as
    /// the entry's (a test fails if this stops).
    var refreshed = 0

    /// What `cached` found: the entry's record has the shown record's values (their storage), or
    /// equal values in the same namespace in other storage, or the step cannot be reused.
    enum Found {
        case same(InstantStep)
        case equalValues(InstantStep)
        case miss
    }

    /// The step cached at slot `i` if it was built from the namespace and values of the record
    /// at `r`, both read in place (binding the entry copied its record and step).
    ///
    /// Values in one storage are told at once; a hit by comparing values (`equalValues`) lets
    /// the caller take the shown record as the entry's, so the step stays exact (a pure function of
    /// the namespace and the values) and the next lookup of the same record is told by storage.
    @inline(__always)
    static func cached(_ entries: [Entry?], _ i: Int, _ r: UnsafePointer<EntityRecord>) -> Found {
        entries.withUnsafeBufferPointer { b in
            guard b[i] != nil, b[i]!.record.namespace == r.pointee.namespace else { return .miss }
            let shared = b[i]!.record.values.withUnsafeBufferPointer { p in
                r.pointee.values.withUnsafeBufferPointer { q in p.count == q.count && p.baseAddress == q.baseAddress }
            }
            if shared { return .same(b[i]!.step) }
            return sameValues(b[i]!.record.values, r.pointee.values) ? .equalValues(b[i]!.step) : .miss
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

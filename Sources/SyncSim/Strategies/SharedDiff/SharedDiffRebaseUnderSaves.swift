/// A collection's new server answer taken under the saves already laid over its overlay, when
/// none of them can tell the two answers apart, instead of rolling them back and laying them
/// again.
///
/// Why: every new answer rolled the overlay back to its answer, brought it to the new one and
/// laid every visible save again, although most answers change entities no visible save
/// names: a save of the profiles is laid over the todos' overlay too (every save is laid over
/// every collection), taking each profile from the collections that show it, and each new
/// todos answer took them all out and looked them all up again (seed 1, swarm, 3,000 actions:
/// the re-laying was most of `lay`, a seventh of the run).
///
/// Why it is exact. Let D be the slots where the old and the new answer differ. A step reads
/// and writes only the slots it names (its entity; a link also reads its target; `fill` looks
/// up only named entities), except a delete, which also rewrites every record linking to its
/// entity. If no step of the saves laid names a slot of D, and no record of D, in either
/// answer, links to an entity a delete step names, then laying the saves over either answer
/// runs every step on the same slots with the same contents, makes the same lookups, and never
/// writes a slot of D, which keeps its answer's record throughout. So the store over the new
/// answer is the store kept, with D's slots holding the new answer's records (`rebase` writes
/// exactly those), and `dirty` (never in D) still lists every slot that differs from the answer.
/// The lookups already stand (`savesStand`), as when the answer does not change.
extension SharedDiffOverlay {
    /// Takes `new` as the answer under the saves laid when no slot where it differs from `base`
    /// is named by them (see above), noting those slots in `touched`; returns false, changing
    /// nothing, otherwise.
    mutating func rebaseUnderSaves(on new: QueryResult, touched: inout [EntityID]) -> Bool {
        let free: Bool = base.entries.withUnsafeBufferPointer { o in
            new.entries.withUnsafeBufferPointer { n in
                var i = 0, j = 0
                while i < o.count || j < n.count {
                    if j == n.count || (i < o.count && o[i].id < n[j].id) {
                        if !isFree(o[i]) { return false }
                        i += 1
                    } else if i == o.count || n[j].id < o[i].id {
                        if !isFree(n[j]) { return false }
                        j += 1
                    } else {
                        if o[i].record != n[j].record && !(isFree(o[i]) && isFree(n[j])) { return false }
                        i += 1
                        j += 1
                    }
                }
                return true
            }
        }
        guard free else { return false }
        rebase(on: new, touched: &touched)
        return true
    }

    /// Whether an answer's entry may differ between the answers: no step names its slot, and its
    /// record links to no entity a delete step names.
    @inline(__always)
    func isFree(_ entry: QueryResult.Entry) -> Bool {
        let g = namedGeneration
        let i = Int(entry.id.raw)
        if i < named.count && named[i] == g { return false }
        return deleteNamed.withUnsafeBufferPointer { db in
            let linked = entry.record.links.withUnsafeBufferPointer { lb in
                for k in 0..<lb.count {
                    if let t = lb[k], Int(t.raw) < db.count, db[Int(t.raw)] == g { return true }
                }
                return false
            }
            if linked { return false }
            for m in entry.record.manyLinks {
                for t in m where Int(t.raw) < db.count && db[Int(t.raw)] == g { return false }
            }
            return true
        }
    }

    /// Marks the slots `steps` name, and the entities their deletes name.
    mutating func markNamed(_ steps: [InstantStep]) {
        let g = namedGeneration
        steps.withUnsafeBufferPointer { sb in
            for j in 0..<sb.count {
                switch sb[j].op {
                case .create(let e, _, _), .update(let e, _, _), .unlink(let e, _, _):
                    Self.mark(e, g, in: &named)
                case .link(let e, _, let t):
                    Self.mark(e, g, in: &named)
                    Self.mark(t, g, in: &named)
                case .delete(let e, _):
                    Self.mark(e, g, in: &named)
                    Self.mark(e, g, in: &deleteNamed)
                }
            }
        }
    }

    @inline(__always)
    static func mark(_ e: EntityID, _ g: UInt32, in marks: inout [UInt32]) {
        let i = Int(e.raw)
        if i >= marks.count { marks.append(contentsOf: repeatElement(0, count: i - marks.count + 1)) }
        marks[i] = g
    }

    /// Unmarks every slot (the saves were taken off).
    mutating func forgetNamed() {
        namedGeneration &+= 1
        if namedGeneration == 0 {
            for i in named.indices { named[i] = 0 }
            for i in deleteNamed.indices { deleteNamed[i] = 0 }
            namedGeneration = 1
        }
    }
}

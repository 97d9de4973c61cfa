/// Whether a record already holds every value an update assigns, read in place.
///
/// Why shared: the InstantDB server (`InstantServer.effect`, an update that does nothing is not
/// applied) and sharedDiff's overlay (`SharedDiffOverlay.passesOver`, a step that writes nothing
/// is passed over) ask the same question of every step they see, and both must answer it
/// exactly as `EntityStore.apply` would: the same namespace, and each assigned field in range
/// and holding a value equal, byte for byte, to the one assigned (`FieldValue ==`). An
/// out-of-range field counts as a change (`apply` refuses or writes it, never passes it).
enum HeldAssignments {
    /// True when `record` (read through the pointer, nothing copied) is in namespace `ns` and
    /// holds every value of `assignments`.
    @inline(__always)
    static func held(by record: UnsafePointer<EntityRecord>, _ ns: NamespaceID, _ assignments: [FieldAssignment]) -> Bool {
        record.pointee.namespace == ns && assignments.withUnsafeBufferPointer { ab in
            record.pointee.values.withUnsafeBufferPointer { vb in
                for k in 0..<ab.count {
                    let f = Int(ab[k].field.raw)
                    guard f < vb.count, let v = vb[f], v == ab[k].value else { return false }
                }
                return true
            }
        }
    }
}

/// A set of entities as one flag per entity id in a flat table (`KeyTable`), for a set the
/// monitor asks about at every step of every applied transaction (`Monitor.deletedOnServer`).
///
/// Why not `Set<EntityID>`: once any deletion applied, `Monitor.applied` asked the set about
/// every other step too (a resurrection check), a hash per step; a sharedDiff save resends its
/// whole collection, so that was 1.2 million hashes in a 3,000-action run. Only membership is
/// asked (nothing iterates it), so no order can leak.
struct EntityFlags: Sendable {
    private var flags = KeyTable<Bool>(stride: 1, blank: false)
    /// Whether no entity was ever inserted.
    private(set) var isEmpty = true

    init() {}

    @inline(__always) func contains(_ e: EntityID) -> Bool { flags[Monitor.entityKey(e)] }

    mutating func insert(_ e: EntityID) {
        flags[Monitor.entityKey(e)] = true
        isEmpty = false
    }
}

/// The reference server's idempotency table: the outcome of every write it has seen, by write id.
///
/// A dense table by id for the ids a run uses (small integers from the schedule), a dictionary
/// for any id too large for it (a user's scenario file may name any id). Why: the server looks
/// up every pushed write, and a retried or batched push sends the same writes again; hashing
/// each id into a dictionary was most of the cost of answering a sync. Only looked up, never
/// iterated, so neither form's order reaches an outcome.
struct ReferenceOutcomeTable: Sendable {
    /// Ids below this go in `dense` (8 bytes or so a slot: a run's ids stay far below).
    static let denseLimit = 1 << 16

    private var dense: [ReferenceOutcome?] = []
    private var sparse: [WriteID: ReferenceOutcome] = [:]

    init() {}

    subscript(w: WriteID) -> ReferenceOutcome? {
        get {
            let i = Int(w.raw)
            if i < Self.denseLimit { return i < dense.count ? dense[i] : nil }
            return sparse[w]
        }
        set {
            let i = Int(w.raw)
            guard i < Self.denseLimit else { sparse[w] = newValue; return }
            if i >= dense.count {
                guard newValue != nil else { return }
                // At least doubled: ids mostly arrive in ascending order.
                dense.append(contentsOf: repeatElement(nil, count: Swift.max(i + 1 - dense.count, dense.count, 64)))
            }
            dense[i] = newValue
        }
    }
}

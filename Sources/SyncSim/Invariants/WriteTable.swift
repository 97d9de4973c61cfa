/// A table by write id for the oracles (a log position, a count or a time per write): a flat
/// array over the ids runs use (dense, from 0), and a dictionary for any other id (the initial
/// data's `UInt32.max`, a huge id in a hand-written history), so any input is a value, never a
/// crash. Only looked up, never iterated: no order can leak.
struct WriteTable<Value: Sendable>: Sendable {
    private var dense: [Value?] = []
    private var sparse: [WriteID: Value] = [:]
    /// Ids below this use the flat array.
    private static var denseLimit: Int { 1 << 24 }

    subscript(_ w: WriteID) -> Value? {
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
                dense.append(contentsOf: repeatElement(nil, count: Swift.max(i + 1 - dense.count, dense.count)))
            }
            dense[i] = newValue
        }
    }
}

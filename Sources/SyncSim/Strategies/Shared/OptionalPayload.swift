/// Reading a present optional element of a buffer where it lies, through a pointer to its
/// payload.
///
/// Why: an element read out of a buffer of optional records or rows (`b[k]?.links == x`,
/// `b[k]!.manyLinks[m][n]`, comparing a part of it) is often copied whole first, through the
/// generic copy of `Optional` (measured with callgrind: a few hundred instructions and a retain
/// and a release of every array the element owns), where a read through a pointer copies
/// nothing. A present optional's payload lies at its start (Swift's layout of a single-payload
/// enum), so the element's address is its payload's.
enum OptionalPayload {
    /// Calls `body` with a pointer to the payload of `b[k]`, which must be present.
    @inline(__always)
    static func read<T, R>(_ b: UnsafeBufferPointer<T?>, _ k: Int, _ body: (UnsafePointer<T>) -> R) -> R {
        precondition(k >= 0 && k < b.count, "OptionalPayload.read: out of range")
        if case .none = b[k] { preconditionFailure("OptionalPayload.read: an absent element") }
        return UnsafeRawPointer(b.baseAddress! + k).withMemoryRebound(to: T.self, capacity: 1) { body($0) }
    }
}

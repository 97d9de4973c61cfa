import Foundation

/// What a checking wrapper client found while a simulation ran: how many times it compared an
/// incremental computation with the same computation from scratch, and the first differences.
/// A class behind a lock because the simulations of one test may run on several threads; each
/// test makes its own.
final class DivergenceLog: @unchecked Sendable {
    private let lock = NSLock()
    private var _checks = 0
    private var _reused = 0
    private var _divergences: [String] = []

    /// Counts one comparison; `reused` says the incremental side reused state from an earlier step
    /// (so the test can tell the incremental path was taken, not only the rebuild).
    func checked(reused: Bool = false) {
        lock.lock(); defer { lock.unlock() }
        _checks += 1
        if reused { _reused += 1 }
    }

    func diverged(_ what: @autoclosure () -> String) {
        lock.lock(); defer { lock.unlock() }
        if _divergences.count < 5 { _divergences.append(what()) }
    }

    var checks: Int { lock.lock(); defer { lock.unlock() }; return _checks }
    var reused: Int { lock.lock(); defer { lock.unlock() }; return _reused }
    var divergences: [String] { lock.lock(); defer { lock.unlock() }; return _divergences }
}

import Foundation

/// Runs whole, independent jobs on several threads. Each simulation stays single-threaded and
/// deterministic; only whole runs are spread across cores, and results come back in index
/// order, so output never depends on thread scheduling.
public enum ParallelRunner {
    /// `body(i)` for every `i` in `0..<count`, in index order.
    public static func map<T: Sendable>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
        prefix(count, jobs: jobs, shouldStop: { false }, body)
    }

    /// `body(i)` for `i` = 0, 1, 2, … while `shouldStop()` says go on, asked before each index
    /// is claimed. Indices are claimed in order and a claimed index always runs to the end, so
    /// the results are those of a prefix `0..<k`, in index order, whatever the number of jobs:
    /// a stop (a deadline, a first failure) never leaves a hole.
    public static func prefix<T: Sendable>(_ count: Int, jobs: Int, shouldStop: @escaping @Sendable () -> Bool,
                                           _ body: @escaping @Sendable (Int) -> T) -> [T] {
        guard count > 0 else { return [] }
        if jobs <= 1 || count == 1 {
            var out: [T] = []
            for i in 0..<count {
                if shouldStop() { break }
                out.append(body(i))
            }
            return out
        }
        let slots = Slots<T>()
        DispatchQueue.concurrentPerform(iterations: min(jobs, count)) { _ in
            while let i = slots.claim(below: count, shouldStop) {
                slots.store(body(i), at: i)
            }
        }
        return slots.results.map { $0! }
    }
}

/// The workers' shared cursor and results; every access holds `lock`. A claimed index gets its
/// slot at claim time, so `results` is always exactly the claimed prefix.
private final class Slots<T>: @unchecked Sendable {
    let lock = NSLock()
    var results: [T?] = []
    var stopped = false

    func claim(below count: Int, _ shouldStop: () -> Bool) -> Int? {
        lock.lock()
        defer { lock.unlock() }
        if stopped || results.count >= count { return nil }
        if shouldStop() {
            stopped = true
            return nil
        }
        results.append(nil)
        return results.count - 1
    }

    func store(_ value: T, at i: Int) {
        lock.lock()
        results[i] = value
        lock.unlock()
    }
}

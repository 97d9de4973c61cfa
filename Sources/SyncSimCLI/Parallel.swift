import Foundation

/// Runs independent jobs on `jobs` threads. Each simulation stays single-threaded and
/// deterministic; only whole runs are spread across cores, and results are returned in index
/// order, so the output never depends on scheduling.
func parallelMap<T: Sendable>(_ count: Int, jobs: Int, _ body: @escaping @Sendable (Int) -> T) -> [T] {
    if jobs <= 1 || count <= 1 { return (0..<count).map(body) }
    let slots = ParallelSlots<T>(count)
    let workers = min(jobs, count)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            slots.lock.lock()
            let i = slots.next
            slots.next += 1
            slots.lock.unlock()
            if i >= count { return }
            let r = body(i)
            slots.lock.lock()
            slots.results[i] = r
            slots.lock.unlock()
        }
    }
    return slots.results.map { $0! }
}

/// The workers' shared results and cursor; every access holds `lock`.
private final class ParallelSlots<T>: @unchecked Sendable {
    let lock = NSLock()
    var results: [T?]
    var next = 0
    init(_ n: Int) { results = [T?](repeating: nil, count: n) }
}

/// Wall-clock seconds, for measuring the harness itself (never inside a simulation).
func wallSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

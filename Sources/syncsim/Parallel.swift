import Foundation

/// Runs independent jobs on `jobs` threads. Each simulation stays single-threaded and
/// deterministic; only whole runs are spread across cores, and results are returned in index
/// order, so the output never depends on scheduling.
func parallelMap<T>(_ count: Int, jobs: Int, _ body: @escaping (Int) -> T) -> [T] {
    if jobs <= 1 || count <= 1 { return (0..<count).map(body) }
    let lock = NSLock()
    var results = [T?](repeating: nil, count: count)
    var next = 0
    let workers = min(jobs, count)
    DispatchQueue.concurrentPerform(iterations: workers) { _ in
        while true {
            lock.lock()
            let i = next
            next += 1
            lock.unlock()
            if i >= count { return }
            let r = body(i)
            lock.lock()
            results[i] = r
            lock.unlock()
        }
    }
    return results.map { $0! }
}

/// Wall-clock seconds, for measuring the harness itself (never inside a simulation).
func wallSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

var defaultJobs: Int { ProcessInfo.processInfo.activeProcessorCount }

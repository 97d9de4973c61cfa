import Foundation

/// CPU time, for `bench`: the seconds a thread or the whole process actually ran.
///
/// Why beside the wall clock: on a shared machine another tenant's burst stretches a run's wall
/// time but not its CPU time, so CPU time per event is the steadier figure for cost per event
/// (`bench`'s flat-cost runs). For the many-jobs sweep the process's CPU time against the one-job
/// sweep's tells contention between the jobs (shared cache lines, the allocator) apart from the
/// machine being busy: equal CPU seconds mean the jobs did not slow each other down, whatever
/// the wall clock says. Never read inside a simulation (simulations run on virtual time).
enum CPUClock {
    /// CPU seconds of the calling thread.
    static func threadSeconds() -> Double { read(CLOCK_THREAD_CPUTIME_ID) }

    /// CPU seconds of the whole process, all threads.
    static func processSeconds() -> Double { read(CLOCK_PROCESS_CPUTIME_ID) }

    private static func read(_ clock: clockid_t) -> Double {
        var ts = timespec()
        guard clock_gettime(clock, &ts) == 0 else { return 0 }
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

import Foundation

/// The harness's own clock: deadlines and timing of the fuzz driver and `bench`. Never read
/// inside a simulation (simulations run on virtual time); only between and around runs.
public enum WallClock {
    /// Monotonic seconds since an arbitrary origin.
    @Sendable public static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    /// The current time as ISO 8601 (UTC), for a report's `timing.startedAt`.
    public static func isoNow() -> String {
        ISO8601DateFormatter().string(from: Date())
    }
}

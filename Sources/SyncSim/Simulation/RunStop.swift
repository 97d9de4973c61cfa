/// A stop condition a long simulation polls: how a time budget or Ctrl-C ends a run of a
/// hundred thousand actions within milliseconds instead of after it.
///
/// Bound as a task-local around a run or a shrink (`RunStop.$current.withValue(stop) { … }`,
/// also in plain synchronous code on one thread); the simulator reads it once when it is
/// created and asks `shouldStop()` every `checkInterval` events, never otherwise. A run it
/// stops returns with `RunResult.interrupted` set: an unfinished run, which callers must report
/// as neither passed nor failed (its violations are those found so far, its final state is
/// not settled). Nothing about a run that is not stopped changes: not its events, its trace
/// hash or its verdicts, so determinism holds.
///
/// Why a task-local and not a parameter: the condition must reach every simulation a fuzz job
/// or a shrink starts (through `AnyStrategy`'s closures and the shrinker) without widening each
/// of their signatures, as `Schema.describing` reaches renderers.
public struct RunStop: Sendable {
    /// True once the run should end (a deadline passed, a signal arrived). Must be cheap,
    /// thread-safe and, once true, stay true.
    public let shouldStop: @Sendable () -> Bool

    public init(_ shouldStop: @escaping @Sendable () -> Bool) {
        self.shouldStop = shouldStop
    }

    /// The condition runs started in this scope obey (nil: none, runs end only by themselves).
    @TaskLocal public static var current: RunStop?

    /// Events between two checks: a power of two, so the check is a mask and a branch.
    public static let checkInterval = 4_096
    @usableFromInline static let checkMask = checkInterval - 1
}

import Foundation

/// Where a fuzz run is, for a progress display. The driver calls its progress closure after
/// every run and every shrink, one call at a time (never concurrently), from worker threads;
/// the library itself prints nothing.
public struct FuzzProgress: Sendable {
    public enum Phase: Sendable, Equatable {
        /// Simulating (strategy, seed) pairs; `completed`/`total` count runs.
        case running
        /// Shrinking failures; `completed`/`total` count (strategy, invariant) failures.
        case shrinking
    }

    public var phase: Phase
    public var completed: Int
    public var total: Int
    /// Runs so far with any violation (expected of known-bad strategies).
    public var runsWithViolations: Int
    /// Runs so far that broke their strategy's contract.
    public var contractViolations: Int
    /// Seconds since the run started (by the configuration's clock).
    public var elapsedSeconds: Double
}

/// Counts completed work and calls the progress closure under one lock.
final class ProgressTally: @unchecked Sendable {
    private let lock = NSLock()
    private var state: FuzzProgress
    private let report: (@Sendable (FuzzProgress) -> Void)?
    private let clock: @Sendable () -> Double
    private let start: Double

    init(total: Int, clock: @escaping @Sendable () -> Double, start: Double, report: (@Sendable (FuzzProgress) -> Void)?) {
        state = FuzzProgress(phase: .running, completed: 0, total: total, runsWithViolations: 0, contractViolations: 0, elapsedSeconds: 0)
        self.report = report
        self.clock = clock
        self.start = start
    }

    func runDone(violated: Bool, contractBroken: Bool) {
        lock.lock()
        defer { lock.unlock() }
        state.completed += 1
        if violated { state.runsWithViolations += 1 }
        if contractBroken { state.contractViolations += 1 }
        emit()
    }

    func startShrinking(total: Int) {
        lock.lock()
        defer { lock.unlock() }
        state.phase = .shrinking
        state.completed = 0
        state.total = total
        emit()
    }

    func shrinkDone() {
        lock.lock()
        defer { lock.unlock() }
        state.completed += 1
        emit()
    }

    private func emit() {
        guard let report else { return }
        state.elapsedSeconds = clock() - start
        report(state)
    }
}

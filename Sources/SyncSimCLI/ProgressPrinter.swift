import Foundation

/// Shows the fuzz driver's progress on standard error: a live line on a terminal, a plain line
/// every 10 s otherwise (CI logs stay short). The driver calls `show` one call at a time.
final class ProgressPrinter: @unchecked Sendable {
    private let output: CLIOutput
    private let quiet: Bool
    private let lock = NSLock()
    private var lastShown = -Double.infinity
    private var lastPhase: FuzzProgress.Phase = .running

    init(output: CLIOutput, quiet: Bool) {
        self.output = output
        self.quiet = quiet
    }

    func show(_ p: FuzzProgress) {
        guard !quiet else { return }
        lock.lock()
        defer { lock.unlock() }
        let interval = output.errorIsTerminal ? 0.2 : 10
        let phaseChanged = p.phase != lastPhase
        guard phaseChanged || p.elapsedSeconds - lastShown >= interval || p.completed == p.total else { return }
        lastShown = p.elapsedSeconds
        lastPhase = p.phase
        let line: String
        switch p.phase {
        case .running:
            let rate = Double(p.completed) / max(p.elapsedSeconds, 1e-9)
            let eta = rate > 0 ? Double(p.total - p.completed) / rate : 0
            let percent = String(format: "%.0f%%", 100 * Double(p.completed) / Double(max(p.total, 1)))
            line = "runs \(p.completed)/\(p.total) (\(percent))  " + String(format: "%.1f runs/s", rate)
                + "  contract violations \(p.contractViolations)  other violations (not claimed, expected) \(p.runsWithViolations - p.contractViolations)  "
                + String(format: "ETA %.0fs", eta)
        case .shrinking:
            line = "shrinking failures \(p.completed)/\(p.total)"
        }
        if output.errorIsTerminal { output.standardError("\r\u{1B}[K" + line) } else { output.standardError(line + "\n") }
    }

    /// Clears the live line.
    func finish() {
        if output.errorIsTerminal && !quiet { output.standardError("\r\u{1B}[K") }
    }
}

import Foundation

/// Where the commands write. `standard` is the process's standard output and error; tests (and
/// tools embedding the CLI) pass closures to capture the text instead. Both closures may be
/// called from worker threads (progress lines), so they must be thread-safe.
public struct CLIOutput: Sendable {
    /// Receives text for standard output (lines end in "\n").
    public var standardOutput: @Sendable (String) -> Void
    /// Receives text for standard error.
    public var standardError: @Sendable (String) -> Void
    /// Standard error is a terminal: progress redraws one live line instead of printing
    /// periodic lines for CI logs.
    public var errorIsTerminal: Bool

    public init(standardOutput: @escaping @Sendable (String) -> Void, standardError: @escaping @Sendable (String) -> Void,
                errorIsTerminal: Bool = false) {
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.errorIsTerminal = errorIsTerminal
    }

    /// File descriptors 1 and 2, written with `write(2)`: no shared `FILE *` buffer, so lines
    /// from several threads never interleave mid-line and nothing is lost at `exit`.
    public static var standard: CLIOutput {
        CLIOutput(standardOutput: { writeAll($0, to: 1) }, standardError: { writeAll($0, to: 2) }, errorIsTerminal: isatty(2) != 0)
    }
}

/// Captures a command's output in memory (for tests of a tool built on `SyncSimCLI`).
public final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out = "", err = ""

    public init() {}

    public var stdout: String { lock.lock(); defer { lock.unlock() }; return out }
    public var stderr: String { lock.lock(); defer { lock.unlock() }; return err }

    public var output: CLIOutput {
        CLIOutput(standardOutput: { [self] s in lock.lock(); out += s; lock.unlock() },
                  standardError: { [self] s in lock.lock(); err += s; lock.unlock() })
    }
}

/// Writes every byte of `s` to a file descriptor (retrying short writes).
private func writeAll(_ s: String, to fd: Int32) {
    let bytes = Array(s.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeBytes { write(fd, $0.baseAddress! + off, $0.count - off) }
        if n <= 0 { return }
        off += n
    }
}

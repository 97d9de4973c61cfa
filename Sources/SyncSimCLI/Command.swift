import SyncSim

/// A subcommand: a name, a one-line summary, help that teaches by example, and a run function
/// returning the exit code (0 ok, 1 violation found, 2 bad input).
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static var help: String { get }
    static func run(_ args: inout Arguments) throws -> Int32
}

enum ExitCode {
    static let ok: Int32 = 0
    static let violation: Int32 = 1
    static let usage: Int32 = 2
}

/// Writes to standard error.
func printError(_ s: String) {
    var e = StandardError()
    print(s, to: &e)
}

struct StandardError: TextOutputStream {
    mutating func write(_ s: String) {
        writeStandardError(s)
    }
}

/// Writes bytes to file descriptor 2 (no shared `FILE *` global, so it is safe from any thread).
func writeStandardError(_ s: String) {
    var bytes = Array(s.utf8)
    var off = 0
    while off < bytes.count {
        let n = bytes.withUnsafeMutableBytes { write(2, $0.baseAddress! + off, $0.count - off) }
        if n <= 0 { return }
        off += n
    }
}

import Foundation

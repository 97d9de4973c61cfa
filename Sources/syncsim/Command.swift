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
        fputs(s, stderr)
    }
}

import Foundation

/// A subcommand: a name, a one-line summary, help that teaches by example (written for the
/// tool's own command name), and a run function returning the exit code (0 ok, 1 violation
/// found, 2 bad input).
protocol Command {
    static var name: String { get }
    static var summary: String { get }
    static func help(_ tool: String) -> String
    static func run(_ args: inout Arguments, _ ctx: CLIContext) throws -> Int32
}

enum ExitCode {
    static let ok: Int32 = 0
    static let violation: Int32 = 1
    static let usage: Int32 = 2
}

/// Bad command-line input: printed with a pointer to the command's help, exit code 2.
struct UsageError: Error, CustomStringConvertible {
    var description: String
    init(_ d: String) { description = d }
}

extension String {
    func ifEmpty(_ s: String) -> String { isEmpty ? s : self }
    func leftPad(_ n: Int) -> String { count >= n ? self : String(repeating: " ", count: n - count) + self }
    func rightPad(_ n: Int) -> String { count >= n ? self : self + String(repeating: " ", count: n - count) }
}

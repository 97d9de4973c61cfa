/// A tiny argument parser in the shape of swift-argument-parser: options are consumed by name,
/// and `finish()` rejects anything left over, so a typo is an error, never silently ignored.
struct Arguments {
    private(set) var items: [String]
    let command: String

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    mutating func flag(_ name: String) -> Bool {
        guard let i = items.firstIndex(of: name) else { return false }
        items.remove(at: i)
        return true
    }

    /// `--name value` or `--name=value`.
    mutating func value(_ name: String) throws -> String? {
        if let i = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let v = String(items[i].dropFirst(name.count + 1))
            items.remove(at: i)
            return v
        }
        guard let i = items.firstIndex(of: name) else { return nil }
        guard i + 1 < items.count, !items[i + 1].hasPrefix("--") else {
            throw UsageError("\(name) needs a value")
        }
        let v = items[i + 1]
        items.removeSubrange(i...(i + 1))
        return v
    }

    /// Every occurrence of a repeatable option.
    mutating func values(_ name: String) throws -> [String] {
        var out: [String] = []
        while let v = try value(name) { out.append(v) }
        return out
    }

    mutating func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let s = try value(name) else { return nil }
        guard let v = Int(s), range.contains(v) else {
            throw UsageError("\(name) expects a whole number in \(range.lowerBound)…\(range.upperBound), got '\(s)'")
        }
        return v
    }

    mutating func seed(_ name: String) throws -> UInt64? {
        guard let s = try value(name) else { return nil }
        guard let v = UInt64(s) else { throw UsageError("\(name) expects a non-negative whole number (a seed), got '\(s)'") }
        return v
    }

    /// A strategy option's value resolved among the tool's strategies.
    mutating func strategy(_ name: String = "--strategy", in ctx: CLIContext) throws -> AnyStrategy? {
        guard let s = try value(name) else { return nil }
        return try ctx.strategy(named: s, option: name)
    }

    /// Remaining positional arguments (anything not starting with `--`).
    mutating func positionals() -> [String] {
        let p = items.filter { !$0.hasPrefix("--") }
        items.removeAll { !$0.hasPrefix("--") }
        return p
    }

    func finish() throws {
        if let first = items.first {
            throw UsageError(first.hasPrefix("--") ? "unknown option '\(first)' for '\(command)'" : "unexpected argument '\(first)' for '\(command)'")
        }
    }
}

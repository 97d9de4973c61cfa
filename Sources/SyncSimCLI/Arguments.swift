/// A tiny argument parser in the shape of swift-argument-parser: options are consumed by name,
/// and `finish()` rejects anything left over, so a typo is an error, never silently ignored.
///
/// Every option a command asks for is remembered, so an unknown option gets a "did you mean"
/// among the command's real ones. A non-repeatable option given twice is an error naming it
/// (which of two values was meant is a guess a tool must not make).
struct Arguments {
    private(set) var items: [String]
    let command: String
    /// The options this command asked for, in the order asked: the candidates of suggestions.
    private(set) var known: [String] = []
    /// Flags given more than once, reported by `finish()` (flags do not throw when read).
    private var repeatedFlags: [String] = []

    init(_ items: [String], command: String) {
        self.items = items
        self.command = command
    }

    private mutating func remember(_ name: String) {
        if !known.contains(name) { known.append(name) }
    }

    /// A flag: present or not. Given twice, `finish()` reports it.
    mutating func flag(_ name: String) -> Bool {
        remember(name)
        let n = items.count { $0 == name }
        guard n > 0 else { return false }
        if n > 1 { repeatedFlags.append(name) }
        items.removeAll { $0 == name }
        return true
    }

    /// `--name value` or `--name=value`, at most once.
    mutating func value(_ name: String) throws -> String? {
        guard let v = try take(name) else { return nil }
        if items.contains(where: { $0 == name || $0.hasPrefix(name + "=") }) {
            throw UsageError("\(name) is given more than once; give it once")
        }
        return v
    }

    /// Every occurrence of a repeatable option.
    mutating func values(_ name: String) throws -> [String] {
        var out: [String] = []
        while let v = try take(name) { out.append(v) }
        return out
    }

    /// Removes and returns the first occurrence of an option's value.
    private mutating func take(_ name: String) throws -> String? {
        remember(name)
        if let i = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            let v = String(items[i].dropFirst(name.count + 1))
            items.remove(at: i)
            return v
        }
        guard let i = items.firstIndex(of: name) else { return nil }
        guard i + 1 < items.count, !items[i + 1].hasPrefix("--") else {
            throw UsageError("\(name) needs a value (\(name) VALUE or \(name)=VALUE)")
        }
        let v = items[i + 1]
        items.removeSubrange(i...(i + 1))
        return v
    }

    /// `--also FEATURES`: the generator's opt-in additions, comma-separated
    /// (`WorkloadFeature`), applied to `config`. An unknown name is an error with a suggestion.
    mutating func also(into config: inout WorkloadGenerator.Config) throws {
        guard let s = try value("--also") else { return }
        switch WorkloadFeature.parse(s) {
        case .success(let fs):
            for f in fs { f.turnOn(in: &config) }
        case .failure(let e):
            let close = NameSuggestion.closest(to: e.name, in: WorkloadFeature.allCases.map(\.rawValue), limit: 1)
            throw UsageError("--also: unknown feature '\(OptionValues.shown(e.name))'" + (close.first.map { "; did you mean '\($0)'?" } ?? "")
                             + " (features: \(WorkloadFeature.names), comma-separated)")
        }
    }

    /// A whole number in `range`; the message shows the range.
    mutating func int(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let s = try value(name) else { return nil }
        guard let v = Int(s), range.contains(v) else {
            throw UsageError("\(name) expects a whole number in \(range.lowerBound)…\(range.upperBound), got '\(OptionValues.shown(s))'")
        }
        return v
    }

    mutating func seed(_ name: String) throws -> UInt64? {
        guard let s = try value(name) else { return nil }
        guard let v = UInt64(s) else {
            throw UsageError("\(name) expects a seed: a whole number in 0…\(UInt64.max), got '\(OptionValues.shown(s))'")
        }
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

    /// Rejects what is left: a repeated flag, a flag given a value, an unknown option (with the
    /// closest known ones) or an extra argument.
    func finish() throws {
        if let r = repeatedFlags.first { throw UsageError("\(r) is given more than once; give it once") }
        guard let first = items.first else { return }
        let shown = OptionValues.shown(first)
        guard first.hasPrefix("--") else {
            throw UsageError("unexpected argument '\(shown)' for '\(command)'" + (first.hasPrefix("-") && first.count > 1
                ? " (options start with '--'; see the list of options)" : ""))
        }
        let name = String(first.prefix { $0 != "=" })
        if known.contains(name) {
            // Only flags are left unconsumed when known: `--quiet=yes`.
            throw UsageError("\(name) is a flag and takes no value; write \(name) alone")
        }
        let close = NameSuggestion.closest(to: name, in: known, limit: 1)
        throw UsageError("unknown option '\(shown)' for '\(command)'" + (close.isEmpty ? "" : " (did you mean '\(close[0])'?)"))
    }
}

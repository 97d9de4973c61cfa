/// The strategies a tool knows, looked up by name: the one place names are resolved, so the
/// CLI, the fuzz driver and scenario replay agree on what a name means and on the error for a
/// name nobody knows.
///
/// Names are checked once, here, because they travel far: into file names
/// (`scenarios/<name>-<invariant>-seed<N>.json`), shell commands printed for copy and paste,
/// JSON, XML and HTML. So a name is non-empty, at most 64 characters of `A–Z a–z 0–9 _ . -`, not
/// `all` (the CLI's word for every strategy), and unique ignoring case (two names differing only
/// in case would write one scenario file on macOS).
public struct StrategySet: Sendable {
    /// In the order given; reports and listings keep it.
    public let strategies: [AnyStrategy]

    public init(_ strategies: [AnyStrategy]) throws {
        var seen: [String: String] = [:]
        for s in strategies {
            try Self.validate(s.name)
            if let other = seen[s.name.lowercased()] {
                throw other == s.name ? StrategySetError.duplicateName(s.name) : StrategySetError.namesEqualIgnoringCase(other, s.name)
            }
            seen[s.name.lowercased()] = s.name
        }
        self.strategies = strategies
    }

    /// The built-in strategies (their names are valid and distinct).
    public static let builtIns: StrategySet = try! StrategySet(AnyStrategy.builtIns)

    public var names: [String] { strategies.map(\.name) }

    public func named(_ name: String) -> AnyStrategy? {
        strategies.first { $0.name == name }
    }

    /// The strategy with this exact name, or an error with suggestions.
    public func resolve(_ name: String) throws -> AnyStrategy {
        guard let s = named(name) else {
            throw UnknownStrategyError(name: name, suggestions: NameSuggestion.closest(to: name, in: names), validNames: names)
        }
        return s
    }

    /// Resolves names as given on a command line: no names, or `all` among them, select every
    /// strategy; repeats are dropped; the result keeps this set's order, so a report does not
    /// depend on the order options were typed in.
    public func select(_ names: [String]) throws -> [AnyStrategy] {
        if names.isEmpty || names.contains("all") {
            for n in names where n != "all" { _ = try resolve(n) }
            return strategies
        }
        var wanted = Set<String>()
        for n in names { wanted.insert(try resolve(n).name) }
        return strategies.filter { wanted.contains($0.name) }
    }

    static func validate(_ name: String) throws {
        if name.isEmpty { throw StrategySetError.invalidName(name, "a strategy name cannot be empty") }
        if name.utf8.count > 64 { throw StrategySetError.invalidName(name, "at most 64 characters") }
        if name == "all" { throw StrategySetError.invalidName(name, "'all' means every strategy on the command line") }
        let ok = name.unicodeScalars.allSatisfy { c in
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-" || c == "."
        }
        if !ok || name.hasPrefix("-") || name.hasPrefix(".") {
            throw StrategySetError.invalidName(name, "use letters, digits, '_', '-' and '.', not first '-' or '.' (names become file names and command-line arguments)")
        }
    }
}

/// A list of strategies that cannot form a `StrategySet`: a programming error in the tool that
/// builds the list, reported with the name at fault.
public enum StrategySetError: Error, Equatable, CustomStringConvertible {
    case duplicateName(String)
    case namesEqualIgnoringCase(String, String)
    case invalidName(String, String)

    public var description: String {
        switch self {
        case .duplicateName(let n):
            return "two strategies are named '\(n)'; give each strategy a distinct StrategyInfo.name"
        case .namesEqualIgnoringCase(let a, let b):
            return "strategies '\(a)' and '\(b)' differ only in case (their scenario files would be one file on macOS); rename one"
        case .invalidName(let n, let why):
            return "invalid strategy name '\(n)': \(why)"
        }
    }
}

/// A name that matches no strategy; says which names are close and which are valid.
public struct UnknownStrategyError: Error, Equatable, CustomStringConvertible {
    public var name: String
    /// Closest valid names, best first (possibly empty).
    public var suggestions: [String]
    public var validNames: [String]

    /// The message, naming the command-line option (or file field) the name came from.
    public func message(for source: String? = nil) -> String {
        var m = "unknown strategy '\(name)'" + (source.map { " for \($0)" } ?? "")
        if !suggestions.isEmpty { m += " (did you mean " + suggestions.map { "'\($0)'" }.joined(separator: " or ") + "?)" }
        m += "; valid values: \(validNames.joined(separator: ", "))"
        return m
    }

    public var description: String { message() }
}

import Foundation

/// The shell commands a report prints to reproduce a failure, under the tool's own command
/// prefix (`swift run syncsim`, `swift run notes-sim`). Arguments that a shell would split or
/// expand are single-quoted, so a command copied from a report runs as printed.
public struct ReplayCommands: Hashable, Sendable {
    public var prefix: String

    public init(prefix: String = "swift run syncsim") {
        self.prefix = prefix
    }

    /// Reruns the original seed with the generator options that produced it.
    public func run(strategy: String, seed: UInt64, generator: WorkloadGenerator.Config) -> String {
        var c = "\(prefix) run --strategy \(Self.quoted(strategy)) --seed \(seed)"
        if let clients = generator.clients { c += " --clients \(clients)" }
        if generator.actions != WorkloadGenerator.Config().actions { c += " --actions \(generator.actions)" }
        if !generator.swarm { c += " --no-swarm" }
        if generator.tenants > 1 { c += " --tenants \(generator.tenants)" }
        if let also = WorkloadFeature.argument(for: generator) { c += " --also \(also)" }
        return c
    }

    /// Shrinks the original seed's failure of `invariant` into a scenario file (for failures a
    /// time budget left unshrunk).
    public func shrink(strategy: String, seed: UInt64, invariant: String, generator: WorkloadGenerator.Config) -> String {
        var c = "\(prefix) shrink --strategy \(Self.quoted(strategy)) --seed \(seed) --invariant \(Self.quoted(invariant))"
        if let clients = generator.clients { c += " --clients \(clients)" }
        if generator.actions != WorkloadGenerator.Config().actions { c += " --actions \(generator.actions)" }
        if !generator.swarm { c += " --no-swarm" }
        if generator.tenants > 1 { c += " --tenants \(generator.tenants)" }
        if let also = WorkloadFeature.argument(for: generator) { c += " --also \(also)" }
        return c
    }

    /// Replays a scenario file as a story.
    public func replay(path: String) -> String {
        "\(prefix) replay \(Self.quoted(path))"
    }

    /// `s` as one shell word: unchanged when it holds only characters no shell treats
    /// specially, else in single quotes (with embedded quotes closed, escaped and reopened).
    public static func quoted(_ s: String) -> String {
        let plain = !s.isEmpty && s.unicodeScalars.allSatisfy { c in
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || "_-./:=@%+,".unicodeScalars.contains(c)
        }
        return plain ? s : "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}

/// A report's options as the generator configuration that made its schedules.
///
/// Why: a failure left unshrunk, or a seed a reader wants to look at again, is reproduced by
/// regenerating its schedule, and that needs every generator option the run used (tenants and
/// `--also` features included); rebuilding it from `clients`, `actions` and `swarm` alone would
/// print a command that generates a different schedule.
extension FuzzReport.Options {
    /// The generator configuration these options name. Values a hand-edited report could hold
    /// out of range (`tenants` outside 2…16, an unknown `also` name) are reported by
    /// `workloadProblem`, and left out here.
    public var generator: WorkloadGenerator.Config {
        var g = WorkloadGenerator.Config(clients: clients, actions: actions, swarm: swarm)
        if let t = tenants, Self.tenantRange.contains(t) { g.tenants = t }
        for name in also ?? [] { WorkloadFeature(rawValue: name)?.turnOn(in: &g) }
        return g
    }

    /// The tenants a report may name: what `fuzz --tenants` accepts.
    public static var tenantRange: ClosedRange<Int> { 2...(ScheduleLimits.maxTenant + 1) }

    /// Why these workload options cannot be those of a real fuzz run, as a sentence naming the
    /// JSON path and the fix; nil when they can.
    public var workloadProblem: String? {
        if let t = tenants, !Self.tenantRange.contains(t) {
            return "options.tenants is \(t); a fuzz run uses \(Self.tenantRange.lowerBound)…\(Self.tenantRange.upperBound) tenants (remove the key for none)"
        }
        for (i, name) in (also ?? []).enumerated() where WorkloadFeature(rawValue: name) == nil {
            return "options.also[\(i)] is '\(name)', not a feature of --also (\(WorkloadFeature.names))"
        }
        return nil
    }
}

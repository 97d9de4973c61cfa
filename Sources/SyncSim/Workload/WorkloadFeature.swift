/// The generator's opt-in additions (`WorkloadGenerator.Config`'s switches that are off by
/// default so that default seeds keep their traces), by the names the command line's `--also`
/// takes. One list, so `fuzz`, `run`, `shrink` and the replay commands a report prints cannot
/// drift apart: a run found with `--also bulk` is rerun with `--also bulk`.
public enum WorkloadFeature: String, CaseIterable, Sendable {
    /// Manual "sync now" taps (seed 004 §2.2; `Config.syncNow`).
    case syncNow
    /// Small `bulkCreate`s, and `pushPull` batches and pages of a few rows (seed 004's large
    /// batch; `Config.bulk`).
    case bulk
    /// Conditions, limits and include trees through link cycles in later subscriptions
    /// (seeds 001 and 002; `Config.richQueries`).
    case richQueries
    /// The `merge` conflict policy and "drop oldest" taps (seed 003; `Config.userChoices`).
    case userChoices

    public func isOn(in c: WorkloadGenerator.Config) -> Bool {
        switch self {
        case .syncNow: return c.syncNow
        case .bulk: return c.bulk
        case .richQueries: return c.richQueries
        case .userChoices: return c.userChoices
        }
    }

    public func turnOn(in c: inout WorkloadGenerator.Config) {
        switch self {
        case .syncNow: c.syncNow = true
        case .bulk: c.bulk = true
        case .richQueries: c.richQueries = true
        case .userChoices: c.userChoices = true
        }
    }

    /// Every name, for help texts and errors.
    public static var names: String { allCases.map(\.rawValue).joined(separator: ", ") }

    /// `"bulk,userChoices"` → those features; `nil` (with the unknown name) for a name not in
    /// the list. Empty items are refused too, so a stray comma is not silently ignored.
    public static func parse(_ text: String) -> Result<[WorkloadFeature], UnknownName> {
        var out: [WorkloadFeature] = []
        for part in text.split(separator: ",", omittingEmptySubsequences: false) {
            let name = part.trimmingCharacters(in: .whitespaces)
            guard let f = WorkloadFeature(rawValue: name) else { return .failure(UnknownName(name: name)) }
            if !out.contains(f) { out.append(f) }
        }
        return .success(out)
    }

    /// The features `c` has on, as `--also` takes them (`nil` when none is).
    public static func argument(for c: WorkloadGenerator.Config) -> String? {
        let on = allCases.filter { $0.isOn(in: c) }
        return on.isEmpty ? nil : on.map(\.rawValue).joined(separator: ",")
    }

    /// A name `parse` does not know.
    public struct UnknownName: Error, Sendable {
        public var name: String
    }
}

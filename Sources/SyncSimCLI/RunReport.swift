import Foundation

/// The JSON shape of `run --json`: one object per run, keys sorted, so scripts (and the
/// determinism check in `.ci/run`) can read the trace hash.
struct RunReport: Encodable {
    struct V: Encodable {
        var invariant: String
        var timeMs: Int64
        var client: String?
        var entity: UInt32?
        var explanation: String
        /// The strategy claims the invariant: a contract violation (exit 1).
        var claimed: Bool
    }
    struct C: Encodable {
        var client: String
        var pendingWrites: Int
        var subscriptions: [String: Bool]
    }
    var strategy: String
    var seed: UInt64
    var events: Int
    var virtualDurationMs: Int64
    var traceHash: String
    var settled: Bool
    var convergenceMs: Int64?
    var serverEntities: Int
    var serverDigest: String
    var scheduleHash: String
    var actions: Int
    var clients: [C]
    var violations: [V]
    /// No violation of an invariant the strategy claims (the exit status is 0 exactly then).
    var contractMet: Bool
    /// The user invariants the run was judged by, in id order; absent when none (the JSON of a
    /// tool without user invariants is unchanged). Their violations are in `violations`.
    var userInvariants: [String]?

    init(_ r: RunResult, schedule: Schedule, contract: Set<InvariantID>) {
        strategy = r.strategy
        seed = r.seed
        events = r.events
        virtualDurationMs = r.virtualDurationMs
        traceHash = r.traceHashHex
        settled = r.settled
        convergenceMs = r.convergenceMs
        serverEntities = r.server.count
        serverDigest = StableHasher.digest(r.server)
        scheduleHash = schedule.digest
        actions = schedule.actions.count
        clients = r.clients.map { c in
            C(client: c.client.description, pendingWrites: c.pendingWrites.count,
              subscriptions: Dictionary(uniqueKeysWithValues: c.subscriptions.map { ($0.id.description, $0.result == $0.expected) }))
        }
        userInvariants = r.customInvariants.isEmpty ? nil : r.customInvariants.map(\.rawValue)
        violations = r.violations.map { V(invariant: $0.invariant.rawValue, timeMs: $0.time, client: $0.client?.description, entity: $0.entity?.raw,
                                          explanation: $0.explanation, claimed: contract.contains($0.invariant)) }
        contractMet = !r.violations.contains { contract.contains($0.invariant) }
    }

    func json() throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys]
        return String(decoding: try e.encode(self), as: UTF8.self)
    }
}

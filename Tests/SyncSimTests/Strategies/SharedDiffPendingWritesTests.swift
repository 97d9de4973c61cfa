import Testing
@testable import SyncSim

/// The pending writes a `sharedDiff` client keeps up to date (`pendingWritesValue`) equal the list
/// built from its unsaved writes and save queue, after every input, restarts included.
@Suite("SharedDiff pending writes")
struct SharedDiffPendingWritesTests {
    enum KeptListMatchesBuilt: SharedDiffCheck {
        static func check(_ inner: inout SharedDiffClient, _ input: ClientInput<InstantDown>, now: Int64,
                          out: inout ClientOutbox<InstantUp>, log: DivergenceLog) {
            inner.handle(input, now: now, out: &out)
            // Built as the property used to build it on every read.
            var built: [WriteID] = []
            for u in inner.unsaved where !built.contains(u.write.id) { built.append(u.write.id) }
            for m in inner.pending where m.txID == nil { for w in m.writes where !built.contains(w) { built.append(w) } }
            log.checked(reused: !built.isEmpty)
            if inner.pendingWrites != built { log.diverged("\(inner.id) at \(now) after \(input): \(inner.pendingWrites) ≠ \(built)") }
        }
    }

    @Test func generatedRunsKeepTheListBuilt() throws {
        let log = DivergenceLog()
        for seed in UInt64(0)..<6 {
            var config = WorkloadGenerator.Config(actions: 150)
            if seed % 2 == 1 {
                for f in WorkloadFeature.allCases { f.turnOn(in: &config) }
                config.tenants = 3
            }
            let schedule = WorkloadGenerator(config).generate(seed: seed)
            _ = try Simulator.run(CheckedSharedDiff<KeptListMatchesBuilt>(log: log), schedule, seed: seed)
        }
        #expect(log.divergences.isEmpty, "\(log.divergences)")
        #expect(log.checks > 1_000)
        #expect(log.reused > 100)
    }

    /// A client restored from its durable state lists the writes its restored queue carries.
    @Test func aRestoredQueueListsItsWrites() {
        let save = SharedDiffClient.SaveMutation(eventID: 1, order: 1, writes: [WriteID(4), WriteID(2)], steps: [], txID: nil)
        let done = SharedDiffClient.SaveMutation(eventID: 2, order: 2, writes: [WriteID(5)], steps: [], txID: 9)
        let c = SharedDiffClient(context: ClientContext.testing(persistence: true),
                                 restoring: SharedDiffClient.Durable(pending: [save, done], cache: []))
        #expect(c.pendingWrites == [WriteID(4), WriteID(2)])
    }
}

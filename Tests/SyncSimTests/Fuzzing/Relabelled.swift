import SyncSim

/// A user-style strategy built through public API only: another strategy's machines under a
/// name and a contract of the user's choosing. `Relabelled(InstantStrategy(), name: "notes",
/// contract: [.noResurrection])` is a user strategy claiming an invariant it breaks (instant
/// resurrects deleted entities at seed 1), the shape of the false green this platform must
/// never report.
struct Relabelled<Base: SyncStrategy>: SyncStrategy {
    var base: Base
    var name: String
    var contract: Set<InvariantID>

    init(_ base: Base, name: String, contract: Set<InvariantID>) {
        self.base = base
        self.name = name
        self.contract = contract
    }

    var info: StrategyInfo {
        StrategyInfo(name: name, summary: "\(base.info.name) relabelled by a test", contract: contract, arbitration: base.info.arbitration)
    }
    var transport: Transport { base.transport }

    func makeClient(_ context: ClientContext, restoring durable: Base.Client.Durable?) -> Base.Client {
        base.makeClient(context, restoring: durable)
    }

    func makeServer(_ context: ServerContext) -> Base.Server { base.makeServer(context) }
}

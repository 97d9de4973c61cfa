/// `fullEntity` (known-bad): InstantDB's client and server, but every update sends all fields of
/// the entity as the client currently sees them — the snapshot updates of seed 000 §1 and §4.3
/// ("Full-entity snapshot updates can clobber unrelated fields with stale values").
///
/// | rule | source |
/// |---|---|
/// | everything as `instant` | see `InstantClient`, `InstantServer` |
/// | an update carries every field of the entity as the client sees it, changed or not | seed 000 §1 "merge vs clobber", §4.3 |
/// | with `instantCombineTransacts`, the server combines queued updates of one entity (each carries every field, so any two match) | session.clj `combine-transact` (`InstantTransactQueue`) |
/// | a user change clears cache and queue (`Tenancy.oneDatabase`) | as `instant`: `InstantClient+Tenants.swift` |
///
/// **Contract.** Arbitration: server arrival order. It keeps `instant`'s promises except
/// disjoint-field merge and LWW convergence: a stale snapshot re-writes fields the user did not
/// touch, so a concurrent edit of another field is lost (clobber); and no phantom write: a later
/// pending snapshot carries the field values of an earlier write, so when that write is refused
/// the view still shows its values.
public struct FullEntityStrategy: SyncStrategy {
    public typealias Client = InstantClient
    public typealias Server = InstantServer

    public init() {}

    public var info: StrategyInfo {
        var contract = InstantStrategy().info.contract
        contract.remove(.disjointFieldMerge)
        contract.remove(.lwwConvergence)
        contract.remove(.typingConvergesToLastKeystroke)
        contract.remove(.noPhantomWrite)
        return StrategyInfo(
            name: "fullEntity",
            summary: "InstantDB with full-entity snapshot updates: stale fields clobber concurrent edits",
            contract: contract, arbitration: .serverArrival, knownBad: true,
            conditionalContract: InstantStrategy().info.conditionalContract)
    }

    public var transport: Transport { .stream }
    /// InstantDB's client: one local store per app (`InstantClient+Tenants.swift`).
    public var tenancy: Tenancy { .oneDatabase }

    public func makeClient(_ context: ClientContext, restoring durable: InstantClient.Durable?) -> InstantClient {
        InstantClient(context: context, fullEntity: true, restoring: durable)
    }

    public func makeServer(_ context: ServerContext) -> InstantServer {
        InstantServer(clients: context.clientCount, schema: context.schema,
                      combineTransacts: context.options.instantCombineTransacts)
    }
}

/// Random continuations of a schedule prefix, for the point of no return: "after this prefix the
/// failure happens whatever the rest does" is tested by replacing the rest with these.
///
/// Why its own small generator and not `WorkloadGenerator`: a continuation must only touch what
/// the prefix created (entities, clients), start after the prefix's last action, and stay short
/// so hundreds of them cost little. It draws from a `SimRandom` stream forked off a fixed label
/// per prefix length, so the same explanation replays the same suffixes in any process.
struct SuffixGenerator {
    var random: SimRandom
    let schema: Schema
    let clients: Int

    init(seed: UInt64, prefixLength: Int, schema: Schema, clients: Int) {
        random = SimRandom(seed: seed ^ 0x6578_706C_6169_6E00).fork(.custom(UInt64(prefixLength)))
        self.schema = schema
        self.clients = clients
    }

    /// A schedule made of `prefix`'s first `length` actions and 1…4 random ones after them.
    mutating func continuation(of prefix: Schedule, length: Int) -> Schedule {
        var s = prefix
        s.actions = Array(prefix.actions.prefix(length))
        // Entities alive after the prefix (by the schedule's own record, not by running it).
        var alive: [(EntityID, NamespaceID)] = prefix.initial.map { ($0.entity, $0.namespace) }
        var nextID: UInt32 = (prefix.initial.map(\.entity.raw) + prefix.actions.compactMap(\.action.createdEntity).map(\.raw)).max().map { $0 + 1 } ?? 1
        for a in s.actions {
            switch a.action {
            case .create(_, let e, let n, _), .serverCreate(let e, let n, _): alive.append((e, n))
            case .delete(_, let e), .serverDelete(let e): alive.removeAll { $0.0 == e }
            default: break
            }
        }
        var t = prefix.actions.prefix(length).map { a -> Int64 in
            if case .type(_, _, _, let text, let every) = a.action { return a.at + Int64(max(0, text.count - 1)) * every }
            return a.at
        }.max() ?? 0
        let count = random.int(in: 1...4)
        for _ in 0..<count {
            t += Int64(random.int(in: 0...1_500))
            let c = ClientID(random.index(max(1, clients)))
            let roll = random.index(8)
            let action: Action
            switch roll {
            case 0...2 where !alive.isEmpty:
                let (e, n) = random.pick(alive)
                let values = randomValues(n)
                if values.isEmpty { action = .goOffline(c) } else { action = roll == 2 ? .serverUpdate(e, values) : .update(c, e, values) }
            case 3 where !alive.isEmpty:
                let (e, _) = random.pick(alive)
                action = random.index(2) == 0 ? .delete(c, e) : .serverDelete(e)
                alive.removeAll { $0.0 == e }
            case 4 where schema.namespaceCount > 0:
                let n = random.pick(schema.namespaceIDs)
                let e = EntityID(nextID)
                nextID += 1
                action = .create(c, e, n, randomValues(n))
                alive.append((e, n))
            case 5: action = .goOffline(c)
            case 6: action = .goOnline(c)
            default: action = .restart(c)
            }
            s.actions.append(TimedAction(at: t, action))
        }
        return s
    }

    /// One random value for one random field of the namespace (empty when it has no fields).
    mutating func randomValues(_ n: NamespaceID) -> [FieldAssignment] {
        let fields = schema.fields(of: n)
        guard !fields.isEmpty else { return [] }
        let f = fields[random.index(fields.count)]
        switch schema.kind(of: f) {
        case .string: return [FieldAssignment(f, .string(["r", "s", "t", "u"][random.index(4)]))]
        case .int: return [FieldAssignment(f, .int(random.int(in: 0...9)))]
        case .bool: return [FieldAssignment(f, .bool(random.index(2) == 0))]
        }
    }
}

extension Action {
    /// Whether the action names `e` (as its entity or a link's target).
    func mentions(_ e: EntityID) -> Bool {
        switch self {
        case .create(_, let x, _, _), .update(_, let x, _), .delete(_, let x), .type(_, let x, _, _, _),
             .serverCreate(let x, _, _), .serverUpdate(let x, _), .serverDelete(let x):
            return x == e
        case .link(_, let x, _, let t), .unlink(_, let x, _, let t):
            return x == e || t == e
        default:
            return false
        }
    }

    /// The entity this action creates, if it creates one.
    var createdEntity: EntityID? {
        switch self {
        case .create(_, let e, _, _), .serverCreate(let e, _, _): return e
        default: return nil
        }
    }
}

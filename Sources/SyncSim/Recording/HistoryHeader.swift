import Foundation

/// The first line of a history file: the format and version, the data model, and the facts the
/// oracles need that no event carries — how many clients, the write-queue cap, whether clients
/// persist across restarts, clock skews, the conflict rule, the contract to judge by, and the
/// server's data before the first event.
///
/// ```json
/// {"syncsim":"history","version":1,"schema":"todos","clients":2,"queueCap":200,"persistence":true,
///  "arbitration":"serverArrival","strategy":"instant","initial":[{"entity":0,"namespace":"todos","set":{"title":"a"}}]}
/// ```
public struct HistoryHeader: Sendable, Equatable {
    /// The version of the format this SyncSim writes and reads.
    public static let currentVersion = 1

    /// The data model: embedded in the file unless it is `Schema.default` or a schema the tool knows by name.
    public var schema: Schema
    /// Number of clients (devices), named `A`, `B`, … in every line. 1…26.
    public var clients: Int
    /// The client's write-queue cap, if it has one (`queueCapNoSilentDrop` is run only when given).
    public var queueCap: Int?
    /// Whether clients keep pending writes and cached results across a restart.
    public var persistence: Bool
    /// How far each client's clock runs ahead of the server's, in ms, if known (HLC bounds).
    public var skews: [Int64]
    /// The conflict rule the system claims; nil: none declared (`check --arbitration` may give it).
    public var arbitration: Arbitration?
    /// The invariants the system claims (`check --contract` may override); nil: none declared.
    public var contract: [InvariantID]?
    /// The name of the strategy that produced the history (a simulation), or a label of the system.
    public var strategy: String?
    /// The server's data before the first event (the initial data).
    public var initial: EntityStore

    public init(schema: Schema = .default, clients: Int, queueCap: Int? = nil, persistence: Bool = true, skews: [Int64] = [],
                arbitration: Arbitration? = nil, contract: [InvariantID]? = nil, strategy: String? = nil, initial: EntityStore = EntityStore()) {
        self.schema = schema
        self.clients = clients
        self.queueCap = queueCap
        self.persistence = persistence
        self.skews = skews
        self.arbitration = arbitration
        self.contract = contract
        self.strategy = strategy
        self.initial = initial
    }

    /// The header as one JSON line (no newline).
    public func line() -> String {
        var out = "{\"syncsim\":\"history\",\"version\":\(Self.currentVersion),\"schema\":"
        if schema == .default || Schema.known.contains(schema) {
            HistoryCodec.string(schema.name, into: &out)
        } else {
            let enc = JSONEncoder()
            enc.outputFormatting = [.sortedKeys]
            let data = (try? enc.encode(SchemaDeclaration(schema))) ?? Data("\"\(schema.name)\"".utf8)
            out += String(decoding: data, as: UTF8.self)
        }
        out += ",\"clients\":\(clients)"
        if let queueCap { out += ",\"queueCap\":\(queueCap)" }
        out += ",\"persistence\":\(persistence)"
        if !skews.isEmpty { out += ",\"skews\":[" + skews.map(String.init).joined(separator: ",") + "]" }
        if let arbitration { out += ",\"arbitration\":\"\(arbitration.rawValue)\"" }
        if let contract { out += ",\"contract\":[" + contract.map { HistoryCodec.quoted($0.rawValue) }.joined(separator: ",") + "]" }
        if let strategy { out += ",\"strategy\":"; HistoryCodec.string(strategy, into: &out) }
        if initial.count > 0 {
            out += ",\"initial\":"
            HistoryCodec.records(initial.entities, schema, into: &out)
        }
        return out + "}"
    }

    /// Reads a header line. `knownInvariants`: ids besides the built-ins a contract may name.
    static func parse(_ bytes: [UInt8], knownInvariants: [InvariantID] = []) throws -> HistoryHeader {
        let node: JSONNode
        do { node = try JSONReader.read(bytes) } catch let e as JSONReadError {
            throw HistoryFields.Failure(column: e.location.column, path: e.path, message: "not valid JSON: \(e.message)")
        }
        let o = try HistoryFields(node, path: "")
        guard (try? o.string("syncsim")) == "history" else {
            throw o.fail(o.has("syncsim") ? "syncsim" : nil, "the first line must be the header, {\"syncsim\":\"history\",\"version\":\(currentVersion),…}: see the RecordingHistories article")
        }
        try o.only(["syncsim", "version", "schema", "clients", "queueCap", "persistence", "skews", "arbitration", "contract", "strategy", "initial"])
        let version = try o.int("version", 0...Int64(Int32.max))
        guard version == Int64(currentVersion) else {
            throw o.fail("version", "unsupported version \(version); this syncsim reads version \(currentVersion)")
        }
        // The schema: a name, or the declaration as in scenario files (decoded by its Codable form).
        var schema = Schema.default
        if let s = o.node("schema") {
            if case .string(let name) = s.value {
                // "default" also names `Schema.default` (whose own name is "todos").
                guard let known = name == "default" ? Schema.default : Schema.named(name) else {
                    let names = [Schema.default.name] + Schema.known.map(\.name) + Schema.builtInNamed.map(\.name)
                    throw HistoryFields.fail(s, "schema", "unknown schema '\(JSONText.clipped(name))'\(suggestion(name, names)); known: \(names.joined(separator: ", ")) (or embed the declaration as an object)")
                }
                schema = known
            } else {
                struct Wrapper: Decodable { var schema: SchemaDeclaration }
                do {
                    schema = try JSONDecoder().decode(Wrapper.self, from: Data(bytes)).schema.schema
                } catch let e as DecodingError {
                    let d = Scenario.describe(e, file: "")
                    throw HistoryFields.Failure(column: node.nearestLocation(of: JSONPathComponent.parse(d.path)).column, path: d.path, message: d.message)
                } catch {
                    throw HistoryFields.fail(s, "schema", "not a schema: \(error)")
                }
            }
        }
        let clients = Int(try o.int("clients", Int64(HistoryLimits.clients.lowerBound)...Int64(HistoryLimits.clients.upperBound)))
        let cap = try o.optionalInt("queueCap", Int64(ScheduleLimits.queueCaps.lowerBound)...Int64(ScheduleLimits.queueCaps.upperBound)).map(Int.init)
        let persistence = try o.bool("persistence", default: true)
        var skews: [Int64] = []
        if let s = o.node("skews") {
            let xs = try HistoryFields.array(s, "skews")
            guard xs.count == clients else { throw HistoryFields.fail(s, "skews", "expected one skew per client (\(clients)), got \(xs.count)") }
            skews = try xs.enumerated().map { try HistoryFields.int($0.element, "skews[\($0.offset)]", HistoryLimits.skews) }
        }
        var arbitration: Arbitration?
        if let a = o.node("arbitration") {
            let s = try HistoryFields.string(a, "arbitration")
            guard let v = Arbitration(rawValue: s) else {
                throw HistoryFields.fail(a, "arbitration", "unknown arbitration '\(JSONText.clipped(s))'; expected \(Arbitration.namesForHumans)")
            }
            arbitration = v
        }
        var contract: [InvariantID]?
        if let c = o.node("contract") {
            contract = try HistoryFields.array(c, "contract").enumerated().map { i, n in
                let s = try HistoryFields.string(n, "contract[\(i)]")
                guard let id = InvariantID.builtIns.first(where: { $0.rawValue == s }) ?? knownInvariants.first(where: { $0.rawValue == s }) else {
                    let names = InvariantID.builtIns.map(\.rawValue)
                    throw HistoryFields.fail(n, "contract[\(i)]", "unknown invariant '\(JSONText.clipped(s))'\(suggestion(s, names)); see 'syncsim list invariants'")
                }
                return id
            }
        }
        let strategy = try o.optionalString("strategy")
        var initial = EntityStore()
        if let i = o.node("initial") {
            for (id, r) in try HistoryCodec.records(i, "initial", schema) { initial[id] = r }
        }
        return HistoryHeader(schema: schema, clients: clients, queueCap: cap, persistence: persistence, skews: skews,
                             arbitration: arbitration, contract: contract, strategy: strategy, initial: initial)
    }
}

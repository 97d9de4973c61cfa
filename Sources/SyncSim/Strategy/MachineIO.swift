/// The inputs and effects of the client and server machines. Machines never perform I/O: they
/// write effects into an outbox; the simulator alone moves messages, time and storage.

/// How the device sees its network (not whether the server is reachable: seed 003's distinction).
public enum DeviceNetwork: Hashable, Sendable {
    case online
    case offline
}

/// An input to a client machine.
public enum ClientInput<Down: WireMessage>: Sendable, Hashable {
    case user(UserCommand)
    case received(Down)
    case timerFired(TimerID)
    /// The device's network interface changed (the OS "online"/"offline" event).
    case network(DeviceNetwork)
    /// Stream transports: the connection the client asked for is open.
    case connected
    /// Stream transports: the connection attempt failed, or an open connection closed.
    case disconnected
}

/// An effect a client machine asks the simulator to carry out.
public enum ClientEffect<Up: WireMessage>: Sendable, Hashable {
    case send(Up)
    /// Stream transports: open a connection to the server.
    case connect
    /// Stream transports: close the connection.
    case disconnect
    case setTimer(TimerID, afterMs: Int64)
    case cancelTimer(TimerID)
    /// The machine's durable state changed; the simulator stores `durableState` now.
    case persist
    case event(UserEvent)
    /// A line for the run's story (why the machine did something: "backing off 4 s", "row
    /// conflicts with the server's"). Story only: never part of the trace hash, and dropped
    /// when the run keeps no story. Build the text only when `ClientContext.tracesNotes` is
    /// true, so a note costs nothing in a fuzz run.
    case note(String)
}

/// An input to the server machine.
public enum ServerInput<Up: WireMessage>: Sendable, Hashable {
    case received(from: ClientID, Up)
    case clientConnected(ClientID)
    case clientDisconnected(ClientID)
    case timerFired(TimerID)
    /// A back-office writer that bypasses clients (seed 000 §2.4, InstantDB's admin SDK).
    case adminWrite(UserWrite)
}

/// Who produced a transaction the server applied.
public enum Origin: Hashable, Sendable, CustomStringConvertible {
    case client(ClientID)
    case admin
    public var description: String {
        switch self {
        case .client(let c): return "client \(c)"
        case .admin: return "admin"
        }
    }
}

/// One transaction the server committed: its log entry, which the oracles read.
public struct AppliedTransaction: Hashable, Sendable {
    public var txID: UInt64
    public var origin: Origin
    /// The user intents this transaction carries (several, for coalescing or batching strategies;
    /// none, for traffic no user asked for, such as a diff-computed delete).
    public var writes: [WriteID]
    /// The steps as the server applied them.
    public var ops: [Op]
    /// Rows the server inserted in this transaction, with the ids it assigned (seed 004 §6.1:
    /// the server maps a client id to its own row id). Empty for servers that keep one record
    /// per logical entity and report no row ids; `noDuplicateRows` judges only what is here.
    /// Not part of the trace hash (it restates `ops` for a correct server).
    public var rows: [ServerRow]
    /// Writes the server acknowledged with this transaction without applying their steps: a
    /// later write in `writes` replaced them before they were committed (InstantDB's
    /// `combine-transact` of queued same-field transacts). The oracles count them as superseded,
    /// neither applied nor lost (`Monitor+Supersession`). Empty for every other strategy.
    public var superseded: [WriteID] = []

    public init(txID: UInt64, origin: Origin, writes: [WriteID], ops: [Op], rows: [ServerRow] = [], superseded: [WriteID] = []) {
        self.txID = txID
        self.origin = origin
        self.writes = writes
        self.ops = ops
        self.rows = rows
        self.superseded = superseded
    }

    /// For the story: `" (superseding w3, w4)"`, or nothing.
    public var supersededText: String {
        superseded.isEmpty ? "" : " (superseding " + superseded.map(\.description).joined(separator: ", ") + ")"
    }
}

/// A row a server inserted: the logical entity it stores, the id the server gave it, and the
/// client id the pushing client generated for it (seed 004 §6.4), if any.
public struct ServerRow: Hashable, Sendable, CustomStringConvertible {
    public var entity: EntityID
    public var row: UInt64
    public var clientKey: UInt64?
    public init(entity: EntityID, row: UInt64, clientKey: UInt64? = nil) {
        self.entity = entity
        self.row = row
        self.clientKey = clientKey
    }
    public var description: String { "row \(row) for #\(entity.raw)" }
}

/// An effect the server machine asks the simulator to carry out.
public enum ServerEffect<Down: WireMessage>: Sendable, Hashable {
    case send(ClientID, Down)
    /// Stream transports: close a client's connection.
    case disconnect(ClientID)
    case setTimer(TimerID, afterMs: Int64)
    case cancelTimer(TimerID)
    case applied(AppliedTransaction)
    /// A transaction the server refused (the client machine decides what the user is told).
    case refused(origin: Origin, writes: [WriteID], reason: String)
    case invalidInput(String)
    /// A line for the run's story (see `ClientEffect.note`); build it only when
    /// `ServerContext.tracesNotes` is true.
    case note(String)
}

/// A reusable buffer of effects. Machines append; the simulator drains it after each input, so a
/// transition allocates nothing in steady state (Stateright's `Out`).
///
/// `@inlinable`, like the simulator, so a strategy in another module appends to a specialised
/// buffer rather than through generic code.
public struct Outbox<Effect>: Sendable where Effect: Sendable {
    /// Storage for `effects` (an internal setter of a public property cannot be `@usableFromInline`).
    @usableFromInline var _effects: [Effect] = []
    @inlinable public var effects: [Effect] { _effects }
    @inlinable public init() { _effects.reserveCapacity(16) }
    @inlinable @inline(__always) public mutating func callAsFunction(_ e: Effect) { _effects.append(e) }
    @inlinable @inline(__always) public mutating func removeAll() { _effects.removeAll(keepingCapacity: true) }
    @inlinable public var isEmpty: Bool { _effects.isEmpty }
    /// How many effects are buffered: a machine notes it on entry to put an effect it decides
    /// on late before the ones it emitted since (see `insert(_:at:)`).
    @inlinable public var count: Int { _effects.count }
    /// Puts `e` before the effects emitted since `index` (an earlier `count`). Write-ahead: a
    /// machine that learns only at the end of a step that it must `.persist` can still persist
    /// before its sends and events, so a crash right after a send never loses what was sent
    /// and a user is never shown what a crash would take back.
    @inlinable public mutating func insert(_ e: Effect, at index: Int) {
        _effects.insert(e, at: min(max(0, index), _effects.count))
    }
    /// Exchanges the buffered effects with `other` (the simulator drains into a recycled buffer).
    @inlinable @inline(__always) mutating func swapEffects(_ other: inout [Effect]) { swap(&_effects, &other) }
}

public typealias ClientOutbox<Up: WireMessage> = Outbox<ClientEffect<Up>>
public typealias ServerOutbox<Down: WireMessage> = Outbox<ServerEffect<Down>>

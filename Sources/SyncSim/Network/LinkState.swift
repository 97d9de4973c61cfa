/// The state of one client's link to the server, as values. The network is a star: each client
/// has one bidirectional link (two directed halves sharing this state).
public struct LinkState: Sendable, Hashable {
    /// What the device's OS reports. Offline devices send nothing and receive nothing.
    public var device: DeviceNetwork = .online
    /// False while the server is unreachable from this device although the device is online
    /// (captive portal, server outage, partition).
    public var reachable = true
    /// Bumped whenever the link breaks or the connection closes: a message carries the epoch it
    /// was sent in and is lost if the epoch changed before delivery ("in flight when the link
    /// went down": lost, never delivered late).
    public var epoch: UInt32 = 0
    /// Stream transports: the connection.
    public var connection: Connection = .none
    /// Stream transports: FIFO per direction; the latest scheduled delivery time.
    public var lastUpAt: Int64 = 0
    public var lastDownAt: Int64 = 0

    @usableFromInline init() {}

    public enum Connection: Sendable, Hashable {
        case none
        case connecting(epoch: UInt32)
        case open(epoch: UInt32)
    }

    public var isUp: Bool { device == .online && reachable }

    public var isOpen: Bool {
        if case .open(let e) = connection { return e == epoch }
        return false
    }
}

/// A message's fate, decided by the network model from its own random stream.
public enum MessageFate: Sendable, Equatable {
    case deliver(afterMs: Int64)
    case deliverTwice(afterMs: Int64, againAfterMs: Int64)
    case lose
    /// Stream transports: the fault resets the connection.
    case reset
}

/// Per-message latency and faults. Pure function of the options and the network's random stream.
public struct NetworkModel: Sendable {
    public var latencyMinMs: Int64
    public var latencyMaxMs: Int64
    public var dropPpm: UInt32
    public var duplicatePpm: UInt32
    public var delayPpm: UInt32
    public var delayMaxMs: Int64
    public var random: SimRandom

    /// One stream per directed link (client i up = 2i, down = 2i+1), forked off the network
    /// stream: a message's fate depends only on earlier traffic on its own link, so removing an
    /// action on one client's link leaves every other link's drops and delays unchanged (which
    /// keeps shrinking effective).
    var streams: [SimRandom]

    public init(options: SimulationOptions, random: SimRandom) {
        latencyMinMs = max(0, options.latencyMinMs)
        latencyMaxMs = max(latencyMinMs, options.latencyMaxMs)
        dropPpm = options.dropPpm
        duplicatePpm = options.duplicatePpm
        delayPpm = options.delayPpm
        delayMaxMs = max(0, options.delayMaxMs)
        self.random = random
        streams = (0..<(2 * max(1, options.clients))).map { random.fork(.custom(UInt64($0))) }
    }

    /// The stream of a directed link.
    public static func link(_ c: ClientID, upward: Bool) -> Int { 2 * c.index + (upward ? 0 : 1) }

    /// Heal phase: faults off, latency kept.
    public mutating func heal() {
        dropPpm = 0
        duplicatePpm = 0
        delayPpm = 0
    }

    @inline(__always)
    public mutating func latency(_ link: Int) -> Int64 {
        var l = latencyMinMs == latencyMaxMs ? latencyMinMs : Int64(streams[link].int(in: Int(latencyMinMs)...Int(latencyMaxMs)))
        if delayPpm > 0 && streams[link].chance(ppm: delayPpm) && delayMaxMs > 0 {
            l += Int64(streams[link].int(in: 1...Int(delayMaxMs)))
        }
        return l
    }

    /// Draws are made in a fixed order (drop, duplicate, latency) whatever the outcome, so one
    /// message's fate never shifts the draws of the next.
    @inline(__always)
    public mutating func fate(_ transport: Transport, link: Int) -> MessageFate {
        let drop = dropPpm > 0 && streams[link].chance(ppm: dropPpm)
        let dup = duplicatePpm > 0 && streams[link].chance(ppm: duplicatePpm)
        let l1 = latency(link)
        let l2 = duplicatePpm > 0 ? latency(link) : 0
        if drop { return transport == .stream ? .reset : .lose }
        if dup && transport == .datagram { return .deliverTwice(afterMs: l1, againAfterMs: l1 + l2) }
        return .deliver(afterMs: l1)
    }
}

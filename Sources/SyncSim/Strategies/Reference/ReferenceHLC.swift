/// Hybrid logical clocks for the `reference` strategy.
///
/// A timestamp is (physical, logical, node), compared in that order. `physical` is the owner's
/// wall clock (a client's `now`, which includes its skew); `logical` breaks ties between events
/// in one physical millisecond and carries causality when a remote clock is ahead; `node` (the
/// client index, or `serverNode`) makes every timestamp unique.

public struct HLCTimestamp: Hashable, Comparable, Sendable, CustomStringConvertible, StableHashable {
    public var physical: Int64
    public var logical: UInt32
    public var node: UInt32

    /// The node id of the server's own clock (admin writes).
    public static let serverNode = UInt32.max
    /// Below every real timestamp: the stamp of the server's seed data.
    public static let bottom = HLCTimestamp(physical: Int64.min, logical: 0, node: 0)

    public init(physical: Int64, logical: UInt32, node: UInt32) {
        self.physical = physical
        self.logical = logical
        self.node = node
    }

    public var isServerOrigin: Bool { node == Self.serverNode }

    public static func < (a: HLCTimestamp, b: HLCTimestamp) -> Bool {
        if a.physical != b.physical { return a.physical < b.physical }
        if a.logical != b.logical { return a.logical < b.logical }
        return a.node < b.node
    }

    public var description: String {
        let who = node == Self.serverNode ? "S" : (Int(node) < 26 ? String(UnicodeScalar(UInt8(65 + Int(node)))) : "C\(node)")
        if physical == Int64.min { return "⊥" }
        return "\(physical).\(logical)@\(who)"
    }

    public func stableHash(into h: inout StableHasher) {
        h.combine(physical); h.combine(logical); h.combine(UInt64(node))
    }
}

/// One node's clock. `tick` stamps a local event; `observe` merges a remote timestamp so that the
/// next local stamp is above it (causality).
public struct HybridLogicalClock: Hashable, Sendable {
    public private(set) var last: HLCTimestamp

    public init(node: UInt32) {
        last = HLCTimestamp(physical: Int64.min, logical: 0, node: node)
    }

    public init(restoring last: HLCTimestamp) { self.last = last }

    /// A fresh timestamp for a local event at wall-clock `now`; strictly above every earlier one.
    public mutating func tick(now: Int64) -> HLCTimestamp {
        if now > last.physical {
            last.physical = now
            last.logical = 0
        } else {
            last.logical &+= 1
        }
        return last
    }

    /// Advances past a remote timestamp (the HLC receive rule).
    public mutating func observe(_ remote: HLCTimestamp, now: Int64) {
        let p = max(now, last.physical, remote.physical)
        var l: UInt32
        if p == last.physical && p == remote.physical {
            l = max(last.logical, remote.logical) &+ 1
        } else if p == last.physical {
            l = last.logical &+ 1
        } else if p == remote.physical {
            l = remote.logical &+ 1
        } else {
            l = 0
        }
        last.physical = p
        last.logical = l
    }
}

/// One history line decoded straight from its bytes by `HistoryLineDecoder`: the values of its
/// top-level keys, already typed, range-checked and resolved against the header's schema.
///
/// Why a separate value: the exact reader (`JSONReader` then `HistoryFields`) builds a JSON tree
/// per line and walks it, which was 80% of the cost of checking a long history. The fast
/// decoder fills this instead, and the replayer applies it (`HistoryReplayer.apply(_:line:)`)
/// with the same effects as `consume`. It is only ever filled for a line the exact path would
/// accept with the same values; anything the decoder is unsure of goes to the exact path.
struct HistoryEvent {
    /// The event kinds the fast path decodes and applies (the hot ones of a recording); every
    /// other kind takes the exact path, which knows them all.
    enum Kind: UInt8 {
        case write, yield, view, queue, done, commit, confirmed
    }

    /// The top-level keys the fast path knows, as bits of `keys`.
    enum Key: UInt32 {
        case e, t, client, seq, id, clientTime, offline, burst, ops, sub, fromCache, connected, result
        case writes, silent, write, tx, origin, after

        var bit: UInt32 { 1 << rawValue }

        /// The key spelt by `bytes` (ASCII, no escapes), or nil.
        static func named(_ b: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) -> Key? {
            // Dispatch on length and first byte: no String is made for a key.
            func eq(_ s: StaticString) -> Bool {
                guard s.utf8CodeUnitCount == r.count else { return false }
                let p = s.utf8Start
                var k = 0
                while k < r.count { if p[k] != b[r.lowerBound + k] { return false }; k += 1 }
                return true
            }
            switch r.count {
            case 1: return eq("e") ? .e : eq("t") ? .t : nil
            case 2: return eq("id") ? .id : eq("tx") ? .tx : nil
            case 3: return eq("seq") ? .seq : eq("ops") ? .ops : eq("sub") ? .sub : nil
            case 5: return eq("burst") ? .burst : eq("write") ? .write : eq("after") ? .after : nil
            case 6: return eq("client") ? .client : eq("result") ? .result : eq("writes") ? .writes : eq("silent") ? .silent : eq("origin") ? .origin : nil
            case 7: return eq("offline") ? .offline : nil
            case 9: return eq("fromCache") ? .fromCache : eq("connected") ? .connected : nil
            case 10: return eq("clientTime") ? .clientTime : nil
            default: return nil
            }
        }
    }

    /// `"A"`…`"Z"` (a client index) or `"admin"`.
    enum Who: Equatable {
        case admin
        case client(Int)
    }

    /// Bits of the keys the line has (`Key.bit`).
    var keys: UInt32 = 0
    var kind: Kind = .done
    var t: Int64 = 0
    /// The `client` key (a client, or `admin` for a write).
    var client: Who = .admin
    /// `seq`: nil when absent or null.
    var seq: Int64?
    var id: Int64 = 0
    /// `clientTime`: nil when absent or null.
    var clientTime: Int64?
    var offline = false
    /// `burst`: nil when absent or null.
    var burst: Int64?
    var ops: [Op] = []
    var sub: Int64 = 0
    var fromCache = false
    var connected = false
    /// `result`: nil when absent, `.some(nil)` for JSON null.
    var result: QueryResult??
    var writes: [WriteID] = []
    var silent = false
    var write: Int64 = 0
    var tx: Int64 = 0
    var origin: Who = .admin
    /// `after`: nil when absent.
    var after: [(EntityID, EntityRecord)]?

    func has(_ k: Key) -> Bool { keys & k.bit != 0 }

    /// Whether every key the line has is one of `allowed` (the exact path's `only`).
    func only(_ allowed: [Key]) -> Bool {
        var mask: UInt32 = 0
        for k in allowed { mask |= k.bit }
        return keys & ~mask == 0
    }
}

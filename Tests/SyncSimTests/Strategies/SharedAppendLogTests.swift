import Testing
@testable import SyncSim

/// `SharedAppendLog`: copies share one buffer, yet each is a value. Checked against arrays (each
/// copy's model) under random copies, appends and clears, including copies that append after the
/// copy they came from did (the case that must start a buffer of its own).
@Suite("Shared append log")
struct SharedAppendLogTests {
    @Test func everyCopyKeepsWhatItHeld() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ n: Int) -> Int {
            state ^= state << 13; state ^= state >> 7; state ^= state << 17
            return Int(state % UInt64(n))
        }
        var logs = [SharedAppendLog<Int>()]
        var models: [[Int]] = [[]]
        var value = 0
        for _ in 0..<5_000 {
            let k = next(logs.count)
            switch next(10) {
            case 0 where logs.count < 24:
                // A copy (as a persist takes one, or a test copies a client).
                logs.append(logs[k])
                models.append(models[k])
            case 1:
                logs[k].removeAll()
                models[k].removeAll()
            default:
                value += 1
                logs[k].append(value)
                models[k].append(value)
            }
            if logs.count >= 24 {
                let drop = next(logs.count)
                logs.remove(at: drop)
                models.remove(at: drop)
            }
            for j in logs.indices {
                var seen: [Int] = []
                logs[j].forEach { seen.append($0) }
                #expect(seen == models[j] && logs[j].elements == models[j] && logs[j].count == models[j].count)
                if seen != models[j] { return }
            }
        }
    }

    @Test func anAppendAfterACopyWritesInPlaceAndAnOlderCopyForks() {
        var a = SharedAppendLog<Int>()
        a.append(1)
        let shared = a.bufferIdentity
        let persisted = a
        a.append(2)  // `persisted` ends where `a` ended: in place
        // In place: still the buffer the persisted copy reads (a fork would copy every element).
        #expect(shared != nil && a.bufferIdentity == shared && persisted.bufferIdentity == shared)
        var b = persisted
        b.append(3)  // the buffer is longer than `b`: `b` starts its own
        #expect(b.bufferIdentity != shared)
        a.append(4)
        #expect(a.bufferIdentity == shared)
        #expect(persisted.elements == [1])
        #expect(a.elements == [1, 2, 4])
        #expect(b.elements == [1, 3])
    }

    /// A client persists after most events: a run of persist-then-append never leaves the one
    /// buffer it started with (each append is in place), and every persisted copy keeps its
    /// elements.
    @Test func appendsAfterEveryCopyStayInOneBuffer() {
        var log = SharedAppendLog<Int>()
        log.append(0)
        let first = log.bufferIdentity
        var copies: [SharedAppendLog<Int>] = []
        for k in 1..<200 {
            copies.append(log)
            log.append(k)
            #expect(log.bufferIdentity == first, "append \(k) after a copy was not in place")
            if log.bufferIdentity != first { return }
        }
        for (k, c) in copies.enumerated() { #expect(c.elements == Array(0...k)) }
    }
}

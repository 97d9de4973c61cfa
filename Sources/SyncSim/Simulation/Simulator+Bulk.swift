/// A `bulkCreate` (seed 004's "Large batch (10k items)"): the user creates many entities at one
/// instant.
///
/// Why one write per entity, handed to the client one after the other: seed 004's
/// `createEntity` writes one row and enqueues one operation per entity, and every strategy then
/// answers a bulk as the creates it is, with no code of its own; each write is an intent the
/// oracles judge (read your writes, nothing lost, at most one server row). Why one line of the
/// story: 10,000 lines would bury the rest of the run. The per-item lines the clients' steps
/// write (yields, queue counts) are folded into one summary line after the first few; the trace
/// hash covers every step exactly as if the writes had been separate user commands.
extension Simulator {
    /// Story lines of a bulk's per-item steps kept before the rest are folded into one line.
    @usableFromInline static var bulkStoryLinesKept: Int { 8 }

    @inlinable
    mutating func bulkCommand(_ c: ClientID, _ ws: [UserWrite]) {
        // A logged-out user creates nothing (as `userCommand`): one skipped line for the bulk.
        if tenancyOn, tenantOf[c.index] == nil {
            recorder.begin(now, 0x82); recorder.hasher.combine(c.index); recorder.hasher.combine(ws.count)
            if recorder.keepsLines {
                recorder.line(now, .action, client: c, label: "skipped", "\(c) is logged out: \(c) " + Self.bulkText(ws) + " does not happen")
            }
            return
        }
        recorder.begin(now, 0x23); recorder.hasher.combine(c.index); recorder.hasher.combine(ws.count)
        var mark = 0
        if recorder.keepsLines {
            recorder.line(now, .action, client: c, label: "user", "\(c) " + Self.bulkText(ws))
            mark = recorder.lines.count
        }
        for w in ws {
            w.stableHash(into: &recorder.hasher)
            _history.recordIntent(w, origin: .client(c), time: now, clientTime: now + options.skew(of: c),
                                  whileDisconnected: !links[c.index].isUp)
            let cmd = UserCommand.write(w)
            if let x = export { x.command(c, cmd, clientTime: now + options.skew(of: c), offline: !links[c.index].isUp, self) }
            withMonitor { $0.beforeCommand(c, cmd, $1) }
            inUserCommand = true
            clientInput(c, .user(cmd))
            inUserCommand = false
            if let x = export { x.done(c, self) }
            withMonitor { $0.afterCommand(c, cmd, $1) }
        }
        if recorder.keepsLines {
            let extra = recorder.lines.count - mark
            let keep = Self.bulkStoryLinesKept
            if extra > keep + 1 {
                let last = recorder.lines[recorder.lines.count - 1]
                recorder.lines.removeSubrange((mark + keep)...)
                recorder.line(now, .event, client: c, label: "bulk",
                              "… \(extra - keep - 1) more lines of \(c)'s steps for this bulk create, folded (same kinds as above) …")
                recorder.lines.append(last)
            }
        }
    }

    /// "creates 10000 todos #100…#10099 in bulk (w0…w9999) {title = "x"}".
    @usableFromInline
    static func bulkText(_ ws: [UserWrite]) -> String {
        guard let first = ws.first, case .create(let e0, let ns, let a)? = first.ops.first,
              let last = ws.last, let e1 = last.ops.first?.entity else { return "creates nothing in bulk" }
        let values = a.isEmpty ? "" : " {" + a.map(\.description).joined(separator: ", ") + "}"
        let name = ws.count == 1 ? ns.singular : ns.name
        return "creates \(ws.count) \(name) #\(e0.raw)…#\(e1.raw) in bulk (\(first.id)…\(last.id))\(values)"
    }
}

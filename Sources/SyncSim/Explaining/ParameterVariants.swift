/// The other values an explanation tries for each parameter of an action or initial entity: a
/// few per parameter, chosen to differ in the ways sync bugs care about (another client, another
/// value of the same type, a slower or faster burst, the other conflict choice or crash point).
///
/// Why a few fixed values and not random ones: "free" claims that *other values* fail the same
/// way; fixed alternatives make that claim reproducible and cheap (one run each), and a value
/// equal to the original is never offered, so every alternative is a real change. Parameters are
/// named as the scenario file spells them (`client`, `set.bio`, `text`, `everyMs`), so a reader
/// can find them in the file.
enum ParameterVariants {
    /// (parameter name, alternative actions) for each parameter of `action` that has at least one
    /// alternative, in a fixed order.
    static func of(_ action: Action, clients: Int, schema: Schema) -> [(String, [Action])] {
        var out: [(String, [Action])] = []
        func clientVariants(_ c: ClientID) {
            let others = (0..<clients).filter { $0 != c.index }.prefix(3).map { ClientID($0) }
            if !others.isEmpty { out.append(("client", others.map { o in action.mapClient { _ in o } })) }
        }
        func valueVariants(_ values: [FieldAssignment], _ rebuild: ([FieldAssignment]) -> Action) {
            for (i, v) in values.enumerated() {
                let alts = alternatives(v.value).map { alt -> Action in
                    var copy = values
                    copy[i].value = alt
                    return rebuild(copy)
                }
                if !alts.isEmpty { out.append(("set.\(schema.name(of: v.field))", alts)) }
            }
        }
        if let c = action.client { clientVariants(c) }
        switch action {
        case .create(let c, let e, let n, let v): valueVariants(v) { .create(c, e, n, $0) }
        case .update(let c, let e, let v): valueVariants(v) { .update(c, e, $0) }
        case .serverCreate(let e, let n, let v): valueVariants(v) { .serverCreate(e, n, $0) }
        case .serverUpdate(let e, let v): valueVariants(v) { .serverUpdate(e, $0) }
        case .type(let c, let e, let f, let text, let every):
            let same = String(repeating: "x", count: text.count)
            var texts = [same == text ? String(repeating: "y", count: text.count) : same]
            if text.count < ScheduleLimits.maxTypedCharacters { texts.append(text + "z") }
            out.append(("text", texts.map { .type(c, e, f, $0, everyMs: every) }))
            let gaps = [every * 2 + 1, every / 2].filter { $0 != every && ScheduleLimits.typingGaps.contains($0) }
            if !gaps.isEmpty { out.append(("everyMs", gaps.map { .type(c, e, f, text, everyMs: $0) })) }
        case .subscribe(let c, let s, let q):
            if q.include != nil { var x = q; x.include = nil; out.append(("query.include", [.subscribe(c, s, x)])) }
            if q.filter != nil { var x = q; x.filter = nil; out.append(("query.where", [.subscribe(c, s, x)])) }
        case .forceSync(let c, let choice):
            out.append(("choice", ConflictChoice.allCases.filter { $0 != choice }.map { .forceSync(c, $0) }))
        case .crash(let c, let point):
            out.append(("point", CrashPoint.allCases.filter { $0 != point }.map { .crash(c, $0) }))
        default:
            break
        }
        return out
    }

    /// (parameter name, alternative entities) for an initial entity's field values.
    static func of(_ entity: InitialEntity, schema: Schema) -> [(String, [InitialEntity])] {
        entity.values.enumerated().compactMap { i, v in
            let alts = alternatives(v.value).map { alt -> InitialEntity in
                var copy = entity
                copy.values[i].value = alt
                return copy
            }
            return alts.isEmpty ? nil : ("set.\(schema.name(of: v.field))", alts)
        }
    }

    /// Other values of the same type, never equal to `v`.
    static func alternatives(_ v: FieldValue) -> [FieldValue] {
        let candidates: [FieldValue]
        switch v {
        case .string(let s): candidates = [.string("q"), .string(s + "!")]
        case .int(let n): candidates = [.int(n == Int.max ? n - 1 : n + 1), .int(n == 0 ? 7 : 0)]
        case .bool(let b): candidates = [.bool(!b)]
        }
        var out: [FieldValue] = []
        for c in candidates where c != v && !out.contains(c) { out.append(c) }
        return out
    }
}

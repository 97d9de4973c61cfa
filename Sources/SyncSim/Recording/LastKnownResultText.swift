/// How a story shows the last known result a failed `queryOnce` carried (the history's
/// `queryFailed` line has it in full): its roots with their values, e.g.
/// `todo#1 {title = "a", done = false}, todo#2 {title = "b"}`, or `nothing`.
extension QueryResult {
    public var lastKnownText: String {
        if roots.isEmpty { return "nothing" }
        return roots.map { e -> String in
            guard let r = record(e) else { return "#\(e.raw)" }
            var fields: [String] = []
            for (i, v) in r.values.enumerated() {
                if let v { fields.append("\(FieldID(UInt8(i)).name) = \(v)") }
            }
            return "\(EntityRef(e, r.namespace)) {\(fields.joined(separator: ", "))}"
        }.joined(separator: ", ")
    }
}

/// What a scenario file may be, beyond what a schedule may be (`ScheduleLimits`).
///
/// Why: a file is untrusted input. These caps keep the memory and time of loading and running
/// any accepted file proportional to its size and small in absolute terms (an accepted file of
/// 1 MB runs in well under 256 MB), and each is reported with its location and the limit.
/// Generated schedules never pass through here; a file written by `syncsim shrink` is far
/// inside every cap.
public enum ScenarioLimits {
    /// The largest file read: 4 MiB (the library's files are a few KiB).
    public static let maxFileBytes = 4 << 20
    /// Timed actions in one file. (Measured: a 1 MB file of 10,764 creates watched by 26
    /// clients took 378 MB under `reference`; work grows with writes × clients × entities.)
    public static let maxActions = 10_000
    /// Entities in `initial`.
    public static let maxInitialEntities = 2_000
    /// Distinct entities a file names (initial data and creates together).
    public static let maxEntities = 2_000
    /// Entities made by `bulkCreate` actions, on top of `maxEntities`: seed 004's 10,000-item
    /// batch fits in one file. A bulk's entities are alike (one namespace, the same values), so
    /// they cost a file only its count; what they cost a run is linear in it (measured in
    /// `Scenarios/bulk/`).
    public static let maxBulkEntities = 10_000
    /// Characters typed by all `type` actions together (each keystroke is a write).
    public static let maxKeystrokes = 20_000
    /// `title`: one line.
    public static let maxTitleCharacters = 500
    /// `description`: a paragraph or two.
    public static let maxDescriptionCharacters = 20_000

    /// Checks the decoded schedule's totals (entities, keystrokes), with the action that
    /// crosses the cap as the location.
    static func checkTotals(_ s: Schedule, file: String, tree: JSONNode) throws {
        func fail(_ path: [JSONPathComponent], _ message: String) -> ScenarioError {
            ScenarioError(file: file, path: JSONPathComponent.render(path), message: message, location: tree.nearestLocation(of: path))
        }
        var entities = s.initial.count
        if entities > maxEntities {
            throw fail([.key("initial"), .index(maxEntities)], "more than \(maxEntities) entities; a scenario file names at most \(maxEntities)")
        }
        var keystrokes = 0
        var bulk = 0
        for (i, a) in s.actions.enumerated() {
            switch a.action {
            case .create, .serverCreate:
                entities += 1
                if entities > maxEntities {
                    throw fail([.key("actions"), .index(i)], "this create is entity number \(entities); a scenario file names at most \(maxEntities) entities")
                }
            case .bulkCreate(_, _, let count, _, _):
                // A count outside its range is `compile()`'s to report; clamped so no sum overflows.
                bulk += min(max(count, 0), ScheduleLimits.bulkCounts.upperBound + 1)
                if bulk > maxBulkEntities {
                    throw fail([.key("actions"), .index(i), .key("count")], "this bulkCreate brings the file to \(bulk) bulk-created entities; a scenario file creates at most \(maxBulkEntities) in bulk")
                }
            case .type(_, _, _, let text, _):
                keystrokes += min(text.count, ScheduleLimits.maxTypedCharacters + 1)
                if keystrokes > maxKeystrokes {
                    throw fail([.key("actions"), .index(i), .key("text")], "this burst brings the file to \(keystrokes) keystrokes; a scenario file types at most \(maxKeystrokes) characters in all")
                }
            default: break
            }
        }
    }

    /// Checks the parsed tree before decoding: every number is a whole number that fits in 64
    /// bits (no value in the format is fractional, so `1.5` or `1e3` is a mistake, not a
    /// rounding question), and the top-level arrays and texts are within the caps.
    static func check(_ tree: JSONNode, file: String) throws {
        func fail(_ path: [JSONPathComponent], _ at: JSONLocation, _ message: String) -> ScenarioError {
            ScenarioError(file: file, path: JSONPathComponent.render(path), message: message, location: at)
        }
        // Numbers, iteratively (the reader bounds the depth; this walk needs no stack anyway).
        var work: [(JSONNode, [JSONPathComponent])] = [(tree, [])]
        while let (n, path) = work.popLast() {
            switch n.value {
            case .object(let ms): for m in ms.reversed() { work.append((m.value, path + [.key(m.key)])) }
            case .array(let xs): for (i, x) in xs.enumerated().reversed() { work.append((x, path + [.index(i)])) }
            case .number(let text):
                if text.contains(where: { $0 == "." || $0 == "e" || $0 == "E" }) {
                    throw fail(path, n.location, "expected a whole number, got \(JSONText.clipped(text)); every number in a scenario file is an integer (write it without a fraction or exponent)")
                }
                if Int64(text) == nil && UInt64(text) == nil {
                    throw fail(path, n.location, "the number \(JSONText.clipped(text)) is outside \(Int64.min)…\(UInt64.max); no value in a scenario file is that large")
                }
            default: break
            }
        }
        guard case .object(let top) = tree.value else {
            throw fail([], tree.location, "expected a JSON object ({\"format\": 1, \"title\": …}) at the top level")
        }
        for m in top {
            switch (m.key, m.value.value) {
            case ("actions", .array(let xs)) where xs.count > maxActions:
                throw fail([.key("actions")], m.value.location, "\(xs.count) actions; a scenario file holds at most \(maxActions) (shrink it with syncsim shrink)")
            case ("initial", .array(let xs)) where xs.count > maxInitialEntities:
                throw fail([.key("initial")], m.value.location, "\(xs.count) initial entities; a scenario file holds at most \(maxInitialEntities)")
            case ("title", .string(let t)) where t.count > maxTitleCharacters:
                throw fail([.key("title")], m.value.location, "a title of \(t.count) characters; expected at most \(maxTitleCharacters) (put the rest in \"description\")")
            case ("description", .string(let t)) where t.count > maxDescriptionCharacters:
                throw fail([.key("description")], m.value.location, "a description of \(t.count) characters; expected at most \(maxDescriptionCharacters)")
            default: break
            }
        }
    }
}

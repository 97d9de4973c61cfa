/// How the sideBar app detects a conflict for one entity type (seed 003 "1) Persistence +
/// Offline Cache", comparison rules, and "2) Sync State + Conflict Types", conflict rules),
/// chosen by the namespace's name, so a schema that names its namespaces after the app's
/// entity types gets the app's rules.
///
/// | rule | namespaces | seed 003 |
/// |---|---|---|
/// | `modified`: the server's `modified` against the snapshot taken at enqueue | `notes` | "Notes: compare current server `modified` to snapshot `modified`" |
/// | `updatedAt`: the server's `updated_at` against the snapshot | `websites` | "Websites: compare current server `updated_at` to snapshot `updatedAt`" |
/// | `taskSync`: the server reports a stale `client_updated_at` as a conflict | `tasks`, `todos` | "Tasks: rely on `TaskSyncResponse.conflicts` from `/tasks/sync`" |
/// | `expectedVersion`: any other type, `expected_version` / If-Match | every other namespace | "Backend Detail" 1, "Conflict-aware mutations … `expected_version` (or `If-Match`)" |
///
/// All four are the same check in the model: the server stamps each entity it changes with the
/// transaction id (its `modified`, `updated_at` or version) and answers 409 when the request's
/// snapshot differs; they differ in name only, which the prompt and the story show. Not
/// modelled: files' field comparison ("compare current server fields … to snapshot", done by
/// the client against the latest `/files` list because files carry no `updated_at`), which
/// would let a server change to a field outside the compared ones pass without a conflict;
/// files are checked by version like any other type. Tasks' batch endpoint (several queued
/// operations in one `/tasks/sync` request with per-operation results) is not modelled
/// either: each queued write is its own request.
public enum CPConflictRule: String, Hashable, Sendable, CaseIterable {
    case modified
    case updatedAt
    case taskSync
    case expectedVersion

    /// The rule for a namespace, by its name.
    public static func forNamespace(named name: String) -> CPConflictRule {
        switch name.lowercased() {
        case "notes", "note": return .modified
        case "websites", "website": return .updatedAt
        case "tasks", "task", "todos", "todo": return .taskSync
        default: return .expectedVersion
        }
    }

    /// What the prompt calls the compared stamp.
    public var name: String {
        switch self {
        case .modified: return "modified"
        case .updatedAt: return "updated_at"
        case .taskSync: return "client_updated_at"
        case .expectedVersion: return "version"
        }
    }
}

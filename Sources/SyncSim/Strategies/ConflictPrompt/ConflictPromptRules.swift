/// How the sideBar app detects a conflict for one entity type (seed 003 "1) Persistence +
/// Offline Cache", comparison rules, and "2) Sync State + Conflict Types", conflict rules),
/// chosen by the namespace's name, so a schema that names its namespaces after the app's
/// entity types gets the app's rules.
///
/// | rule | namespaces | seed 003 | model |
/// |---|---|---|---|
/// | `modified`: the server's `modified` against the snapshot taken at enqueue | `notes` | "Notes: compare current server `modified` to snapshot `modified`" | the server answers 409 on a mismatch |
/// | `updatedAt`: the server's `updated_at` against the snapshot | `websites` | "Websites: compare current server `updated_at` to snapshot `updatedAt`" | as `modified` |
/// | `fields`: the file's fields in the latest list from the server against the fields snapshot taken at enqueue ("any difference → conflict"), by the client, because `/files` carries no `updated_at` | `files` | "Files: compare current server fields (`filename_original`, `pinned`, `pinned_order`, `path`) to snapshot"; "store a snapshot of relevant fields at enqueue time … and compare against the latest `/files` response before applying queued writes" | `ConflictPromptFiles`: the row is held until the list fetched on reconnect has answered, then compared with the client's newest server copy; a difference prompts without a request; the server checks nothing (the request carries no snapshot) |
/// | `tasksBatch`: the queued task operations go to `/tasks/sync` in one batch; its response reports conflicts for a stale `client_updated_at` and advances `serverUpdatedSince` | `tasks` | "Tasks: rely on `TaskSyncResponse.conflicts` from `/tasks/sync`"; Phase 3: "`/tasks/sync` returns conflicts when `client_updated_at` is stale and updates `serverUpdatedSince`" | `ConflictPromptTaskSync`: one request carries the consecutive task rows at the head of the queue; the server processes them in order and stops at the first conflict (so session order holds: the seed does not say what follows a conflict); the answer carries the tasks changed since `last_sync` and the new `serverUpdatedSince` |
/// | `taskSync`: the stamp named `client_updated_at`, one request per row | `todos` | as tasks, for the default schema's todo list | the server answers 409 on a mismatch (as `modified`) |
/// | `expectedVersion`: any other type, `expected_version` / If-Match | every other namespace | "Backend Detail" 1, "Conflict-aware mutations … `expected_version` (or `If-Match`)" | as `modified` |
///
/// `modified`, `updatedAt`, `taskSync` and `expectedVersion` are the same check in the model: the
/// server stamps each entity it changes with the transaction id (its `modified`, `updated_at` or
/// version) and answers 409 when the request's snapshot differs; they differ in name only, which
/// the prompt and the story show. `todos` keeps the per-request form so runs of the default
/// schema are what they always were.
public enum CPConflictRule: String, Hashable, Sendable, CaseIterable {
    case modified
    case updatedAt
    case taskSync
    case expectedVersion
    case fields
    case tasksBatch

    /// The rule for a namespace, by its name.
    public static func forNamespace(named name: String) -> CPConflictRule {
        switch name.lowercased() {
        case "notes", "note": return .modified
        case "websites", "website": return .updatedAt
        case "tasks", "task": return .tasksBatch
        case "todos", "todo": return .taskSync
        case "files", "file": return .fields
        default: return .expectedVersion
        }
    }

    /// The rule for namespace `ns` of `schema`.
    public static func of(_ ns: NamespaceID, in schema: Schema) -> CPConflictRule {
        schema.contains(ns) ? forNamespace(named: schema.name(of: ns)) : .expectedVersion
    }

    /// What the prompt calls the compared stamp.
    public var name: String {
        switch self {
        case .modified: return "modified"
        case .updatedAt: return "updated_at"
        case .taskSync, .tasksBatch: return "client_updated_at"
        case .expectedVersion: return "version"
        case .fields: return "fields"
        }
    }
}

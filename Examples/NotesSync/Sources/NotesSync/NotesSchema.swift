import SyncSim

/// The notes app's data model: notes live in a folder (one) and carry tags (many).
///
/// Field names are unique across the schema (a patch in a scenario file names its fields without
/// naming the namespace), hence `folderName` and `tagName` rather than two `name`s.
public let notesSchema: Schema = try! Schema(
    name: "notes",
    namespaces: [
        .init("notes", singular: "note", fields: [.string("title"), .string("body"), .bool("pinned", initialValue: false)]),
        .init("folders", singular: "folder", fields: [.string("folderName")]),
        .init("tags", singular: "tag", fields: [.string("tagName")]),
    ],
    links: [
        .init("folder", from: "notes", to: "folders", cardinality: .one, reverseName: "notes"),
        .init("tags", from: "notes", to: "tags", cardinality: .many, reverseName: "taggedNotes"),
    ])

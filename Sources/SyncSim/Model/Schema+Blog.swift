extension Schema {
    /// Seed 001's blog with the link cycle of "Unknown unknowns" 3: profiles write posts, posts
    /// have comments, comments have an author.
    ///
    ///     post.author    → profile   (one; reverse profile.posts)
    ///     comment.post   → post      (one; reverse post.comments)
    ///     comment.author → profile   (one; reverse profile.comments)
    ///
    /// so post → author → posts → comments → author is a query (each level a level of the
    /// include tree) and a traversal that follows every link comes back to where it started.
    /// Named `"blog"` in scenario files (`"schema": "blog"`); the default schema is unchanged.
    public static let blog: Schema = try! Schema(
        name: "blog",
        namespaces: [
            Namespace("profiles", singular: "profile", fields: [.string("name"), .string("bio")]),
            Namespace("posts", singular: "post", fields: [.string("content"), .int("likes", initialValue: 0), .bool("published", initialValue: false)]),
            Namespace("comments", singular: "comment", fields: [.string("body"), .int("score", initialValue: 0)]),
        ],
        links: [
            Link("author", from: "posts", to: "profiles", cardinality: .one, reverseName: "posts"),
            Link("post", from: "comments", to: "posts", cardinality: .one, reverseName: "comments"),
            Link("commenter", from: "comments", to: "profiles", cardinality: .one, reverseName: "comments"),
        ])

    /// The schemas built into the library that files may name (besides `Schema.default`).
    public static let builtInNamed: [Schema] = [.blog]
}

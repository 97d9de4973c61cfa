import Foundation
import Testing
@testable import SyncSim

/// The richer query forms (conditions, limits, include trees through cycles) against an
/// independent, naive evaluator, and the incremental paths (`mayChange`, `patch`) against full
/// evaluation over random transactions: the proof that skipping and patching stay exact.
@Suite struct QueryRichFormsTests {
    /// Include chains of 2…4 levels from `ns`, following the schema's links both ways; at each
    /// level the `k`-th way on (so several chains per namespace), avoiding going straight back
    /// where another way exists. On `blog` these include post → author → posts → comments → commenter.
    static func chains(_ schema: Schema, from ns: NamespaceID) -> [[Query.IncludeNode]] {
        func steps(_ n: NamespaceID) -> [(Query.Include, NamespaceID)] {
            schema.links(of: n).map { (Query.Include.forward($0), schema.target(of: $0)) }
                + schema.incomingLinks(of: n).map { (Query.Include.reverse($0), schema.source(of: $0)) }
        }
        var out: [[Query.IncludeNode]] = []
        let first = steps(ns)
        for k in 0..<first.count {
            for depth in 2...QueryLimits.includeDepth {
                var path: [Query.Include] = [first[k].0]
                var at = first[k].1
                for level in 1..<depth {
                    let s = steps(at)
                    guard !s.isEmpty else { break }
                    let back: Query.Include
                    switch path.last! { case .forward(let l): back = .reverse(l); case .reverse(let l): back = .forward(l) }
                    let options = s.count > 1 ? s.filter { $0.0 != back } : s
                    let pick = options[(k + level) % options.count]
                    path.append(pick.0)
                    at = pick.1
                }
                var node = Query.IncludeNode(path.last!)
                for l in path.dropLast().reversed() { node = Query.IncludeNode(l, children: [node]) }
                out.append([node])
            }
        }
        // Two siblings at the first level.
        if first.count >= 2 { out.append([Query.IncludeNode(first[0].0), Query.IncludeNode(first[1].0, children: [])]) }
        return out
    }

    static func conditions(_ schema: Schema, _ ns: NamespaceID) -> [QueryCondition?] {
        guard let f = Array(schema.fields(of: ns)).first else { return [nil] }
        switch schema.kind(of: f) {
        case .string:
            return [nil, .compare(f, .gt, .string("v0")), .compare(f, .lte, .string("v1")), .compare(f, .ne, .string("v2")),
                    .isIn(f, [.string("v0"), .string("v2")]),
                    .or([.compare(f, .eq, .string("v1")), .compare(f, .lt, .string("v1"))]),
                    .and([.compare(f, .gte, .string("v1")), .compare(f, .ne, .string("v2"))])]
        case .int:
            return [nil, .compare(f, .gt, .int(0)), .compare(f, .lte, .int(1)), .isIn(f, [.int(0), .int(2)]),
                    .or([.compare(f, .eq, .int(1)), .compare(f, .ne, .int(0))])]
        case .bool:
            return [nil, .compare(f, .ne, .bool(true)), .isIn(f, [.bool(true)])]
        }
    }

    static func queries(_ schema: Schema) -> [Query] {
        var out: [Query] = []
        for ns in schema.namespaceIDs {
            for c in conditions(schema, ns) {
                for limit in [nil, 1, 2] as [Int?] {
                    out.append(Query(ns, condition: c, limit: limit))
                    for tree in chains(schema, from: ns) { out.append(Query(ns, condition: c, limit: limit, includes: tree)) }
                }
            }
        }
        // Every query without includes, and a spread of at most 48 with (the suite stays fast
        // in debug).
        let flat = out.filter { !$0.isBasic && $0.includes.isEmpty }
        let trees = out.filter { !$0.includes.isEmpty && !$0.isBasic }
        let n = min(48, trees.count)
        return flat + (0..<n).map { trees[$0 * trees.count / n] }
    }

    /// The naive evaluator: sets, level by level, no flags.
    static func naive(_ q: Query, _ store: EntityStore, _ schema: Schema) -> QueryResult {
        var roots: [EntityID] = []
        for i in 0..<store.records.count {
            guard let r = store.records[i], r.namespace == q.namespace else { continue }
            if let f = q.filter, r[f.field] != f.value { continue }
            if let c = q.condition, !c.matches(r) { continue }
            if let n = q.limit, roots.count == n { break }
            roots.append(EntityID(UInt32(i)))
        }
        var all = Set(roots)
        func targets(_ e: EntityID, _ l: LinkID) -> [EntityID] {
            guard let r = store[e] else { return [] }
            var out: [EntityID] = []
            r.forEachTarget(of: l) { out.append($0) }
            return out.filter { store[$0] != nil }
        }
        func walk(_ n: Query.IncludeNode, from level: Set<EntityID>) {
            var next = Set<EntityID>()
            switch n.link {
            case .forward(let l): for e in level { next.formUnion(targets(e, l)) }
            case .reverse(let l):
                for i in 0..<store.records.count where store.records[i] != nil {
                    let e = EntityID(UInt32(i))
                    if targets(e, l).contains(where: level.contains) { next.insert(e) }
                }
            }
            all.formUnion(next)
            for c in n.children { walk(c, from: next) }
        }
        for n in q.includes { walk(n, from: Set(roots)) }
        return QueryResult(roots: roots, children: Array(all), store: store)
    }

    @Test(arguments: [Schema.blog, Schema.default, notesSchema])
    func evaluationEqualsTheNaiveOne(schema: Schema) {
        let queries = Self.queries(schema)
        var reachedDeep = 0, deep = 0, evaluated = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, [], seed: 17) { store, steps, _, _ in
            for q in queries {
                let r = q.evaluate(store)
                evaluated += 1
                #expect(r == Self.naive(q, store, schema), "\(q) after \(steps)")
                if q.includeDepth >= 2 { deep += 1; if r.entries.count > r.roots.count { reachedDeep += 1 } }
            }
        }
        #expect(reachedDeep > 50, "deep trees must reach entities to mean anything (\(reachedDeep) of \(deep) deep, \(evaluated) evaluated)")
    }

    @Test(arguments: [Schema.blog, Schema.default, notesSchema])
    func skippingIsExact(schema: Schema) {
        let queries = Self.queries(schema)
        var skipped = 0, checked = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 23) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                checked += 1
                if !q.mayChange(b, touched: touched, in: store, schema: schema) {
                    skipped += 1
                    #expect(q.evaluate(store) == b, "skipped \(q) after \(steps) but its result changed")
                }
            }
        }
        #expect(skipped > checked / 10, "the check must actually skip queries to mean anything (\(skipped) of \(checked))")
    }

    @Test(arguments: [Schema.blog, Schema.default, notesSchema])
    func patchingEqualsEvaluatingOrRefuses(schema: Schema) {
        let queries = Self.queries(schema)
        var patched = 0, changes = 0
        QueryRelevanceTests.forEachRandomTransaction(schema, queries, seed: 29) { store, steps, before, touched in
            for (q, b) in zip(queries, before) {
                var r = b
                guard let changed = q.patch(&r, touched: touched, in: store) else {
                    #expect(!q.includes.isEmpty || q.limit != nil, "only includes and limits are refused (\(q))")
                    #expect(r == b)
                    continue
                }
                patched += 1
                let truth = q.evaluate(store)
                #expect(r == truth, "patching \(q) after \(steps) gave another result than evaluating it")
                #expect(changed == (truth != b))
                if changed { changes += 1 }
            }
        }
        #expect(patched > 500 && changes > 50, "(\(patched) patched, \(changes) changed)")
    }

    /// Post → author → posts → comments → commenter on the blog: a comment deep in the tree is in
    /// the result, and changing it changes the result (and `mayChange` says so); a cycle ends.
    @Test func aLinkCycleIsFiniteAndReachesTheDeepComment() throws {
        let s = Schema.blog
        let posts = try #require(s.namespace(named: "posts")), profiles = try #require(s.namespace(named: "profiles"))
        let comments = try #require(s.namespace(named: "comments"))
        let author = try #require(s.link(named: "author")), post = try #require(s.link(named: "post"))
        let commenter = try #require(s.link(named: "commenter")), body = try #require(s.field(named: "body"))
        var store = EntityStore()
        func ok(_ op: Op) { #expect(store.apply(op, schema: s) == nil, "\(op)") }
        ok(.create(EntityID(0), profiles, [])); ok(.create(EntityID(1), posts, [])); ok(.create(EntityID(2), posts, []))
        ok(.create(EntityID(3), comments, [])); ok(.create(EntityID(4), profiles, []))
        ok(.link(EntityID(1), author, EntityID(0))); ok(.link(EntityID(2), author, EntityID(0)))
        ok(.link(EntityID(3), post, EntityID(2))); ok(.link(EntityID(3), commenter, EntityID(4)))
        let tree = Query.IncludeNode(.forward(author), children: [
            Query.IncludeNode(.reverse(author), children: [
                Query.IncludeNode(.reverse(post), children: [Query.IncludeNode(.forward(commenter))])])])
        let q = Query(posts, condition: nil, limit: 1, includes: [tree])
        let r = q.evaluate(store)
        #expect(r.roots == [EntityID(1)])
        #expect(r.entries.map(\.id) == (0...4).map { EntityID(UInt32($0)) })
        var undo = EntityStore.UndoLog()
        #expect(store.apply(.update(EntityID(3), comments, [FieldAssignment(body, .string("deep"))]), schema: s, undo: &undo) == nil)
        #expect(q.mayChange(r, touched: store.touched(by: undo), in: store, schema: s))
        #expect(q.evaluate(store) != r)
        #expect(Schema.$describing.withValue(s) { q.description } == "posts limit 1 with author { posts { comments { commenter } } }")
    }

    /// A limit drops an entity from the view without any change to it.
    @Test func aLimitedViewLosesAnEntityThatDidNotChange() {
        var store = EntityStore()
        _ = store.apply(.create(EntityID(2), .todos, []), schema: .default)
        let q = Query(.todos, condition: nil, limit: 1)
        let before = q.evaluate(store)
        #expect(before.roots == [EntityID(2)])
        var undo = EntityStore.UndoLog()
        _ = store.apply(.create(EntityID(1), .todos, []), schema: .default, undo: &undo)
        #expect(q.mayChange(before, touched: store.touched(by: undo), in: store, schema: .default))
        #expect(q.evaluate(store).roots == [EntityID(1)])
        var r = before
        #expect(q.patch(&r, touched: store.touched(by: undo), in: store) == nil, "a limit is never patched")
    }

    // MARK: - JSON

    static func historyRoundTrip(_ q: Query, _ s: Schema) throws -> Query {
        var text = ""
        HistoryCodec.query(q, s, into: &text)
        return try HistoryCodec.query(try JSONReader.read(Array(text.utf8)), s)
    }

    static func codableRoundTrip(_ q: Query, _ s: Schema) throws -> Query {
        try Schema.$describing.withValue(s) {
            try JSONDecoder().decode(Query.self, from: try JSONEncoder().encode(q))
        }
    }

    @Test(arguments: [Schema.blog, Schema.default, notesSchema])
    func everyRichQueryRoundTripsThroughBothCodecs(schema: Schema) throws {
        for q in Self.queries(schema) {
            #expect(try Self.historyRoundTrip(q, schema) == q, "\(q)")
            #expect(try Self.codableRoundTrip(q, schema) == q, "\(q)")
            #expect(throws: Never.self) { try QueryChecks.check(q, schema, path: "q") }
        }
        // Today's forms keep today's text.
        var text = ""
        HistoryCodec.query(Query(.posts, where: FieldAssignment(.likes, .int(2)), include: .forward(.author)), .default, into: &text)
        #expect(text == #"{"namespace":"posts","where":{"likes":2},"include":"author"}"#)
    }

    static func historyError(_ json: String, _ s: Schema = .blog) -> String {
        do {
            _ = try HistoryCodec.query(try JSONReader.read(Array(json.utf8)), s)
            return "no error"
        } catch let f as HistoryFields.Failure {
            return "\(f.path): \(f.message)"
        } catch {
            return "\(error)"
        }
    }

    @Test func hostileQueriesAreRefusedWithTheirPath() {
        #expect(Self.historyError(#"{"namespace":"posts","where":{"likes":{"$gt":true}}}"#).hasPrefix("where.likes.$gt: expected a int value"))
        #expect(Self.historyError(#"{"namespace":"posts","where":{"published":{"$lt":true}}}"#).hasPrefix("where.published.$lt: $lt compares ints or strings"))
        #expect(Self.historyError(#"{"namespace":"posts","where":{"or":[{"likes":1},{"nope":2}]}}"#).hasPrefix("where.or[1].nope: 'nope' is not a field of posts"))
        #expect(Self.historyError(#"{"namespace":"posts","where":{"likes":{"$like":"%a%"}}}"#).hasPrefix("where.likes.$like: unknown operator"))
        let many = (0...QueryLimits.inValues).map(String.init).joined(separator: ",")
        #expect(Self.historyError(#"{"namespace":"posts","where":{"likes":{"$in":[\#(many)]}}}"#).hasPrefix("where.likes.$in: expected an array of 1…32"))
        #expect(Self.historyError(#"{"namespace":"posts","limit":0}"#).hasPrefix("limit: expected a whole number in 1…10000, got 0"))
        #expect(Self.historyError(#"{"namespace":"posts","limit":1.5}"#).hasPrefix("limit: expected a whole number"))
        #expect(Self.historyError(#"{"namespace":"posts","include":{"author":{"posts":{"author":{"posts":{"author":{}}}}}}}"#)
                    .hasPrefix("include.author.posts.author.posts: includes nested deeper than 4 levels"))
        #expect(Self.historyError(#"{"namespace":"posts","include":{"author":{"comments":{"post":{"autor":{}}}}}}"#)
                    .hasPrefix("include.author.comments.post.autor: posts cannot include 'autor'; did you mean 'author'?"))
        var deep = #"{"likes":1}"#
        for _ in 0..<QueryLimits.conditionDepth { deep = #"{"or":[\#(deep)]}"# }
        #expect(Self.historyError(#"{"namespace":"posts","where":\#(deep)}"#).contains("nested deeper than 4 levels"))
        #expect(Self.historyError(#"{"namespace":"posts","where":{"likes":{"$gte":1},"content":{"$in":["a"]}},"limit":3,"include":{"comments":{"commenter":{}},"author":{}}}"#) == "no error")
    }

    /// Scenario files name the blog schema and write the richer forms; errors name the JSON path.
    @Test func scenarioFilesReadTheRicherFormsOnTheBlogSchema() throws {
        let good = #"{"schema": "blog", "initial": [], "actions": [{"at": 0, "do": "subscribe", "client": "A", "sub": 1, "query": {"namespace": "posts", "where": {"or": [{"likes": {"$gt": 2}}, {"published": true}]}, "limit": 2, "include": {"author": {"posts": {"comments": {"commenter": {}}}}}}}]}"#
        let s = try JSONDecoder().decode(Schedule.self, from: Data(good.utf8))
        #expect(s.schema == .blog)
        _ = try s.compile()
        let bad = good.replacingOccurrences(of: #""$gt": 2"#, with: #""$gt": "x""#)
        do {
            _ = try JSONDecoder().decode(Schedule.self, from: Data(bad.utf8))
            Issue.record("a string compared with an int field must be refused")
        } catch let DecodingError.dataCorrupted(ctx) {
            #expect(Scenario.pathString(ctx.codingPath) == "actions[0].query.where.or[0].likes.$gt")
            #expect(ctx.debugDescription.contains("expected a int value"))
        }
    }
}

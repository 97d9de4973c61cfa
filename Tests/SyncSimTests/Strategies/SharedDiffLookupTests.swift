import Testing
@testable import SyncSim

/// When a `seen` lookup an overlay made still stands (`SharedDiffOverlay.stands`).
@Suite("SharedDiff overlay lookups")
struct SharedDiffLookupTests {
    let profile = EntityID(3)

    func shown(name: String?) -> QueryResult {
        var store = EntityStore()
        if let name {
            _ = store.apply(.create(profile, .profiles, [FieldAssignment(.name, .string(name))]), schema: .default)
        }
        return Query(.profiles).evaluate(store)
    }

    func collections(showing name: String?) -> [SharedDiffClient.Collection] {
        var c = SharedDiffClient.Collection(key: .subscription(SubscriptionID(1)), query: Query(.profiles))
        c.server = shown(name: name)
        c.shown = shown(name: name)
        return [c]
    }

    var lookup: (id: EntityID, record: EntityRecord?) { (profile, collections(showing: "ann")[0].shown!.record(profile)) }

    /// A view of todos without includes never reads a profile's values: the lookup stands while
    /// some collection shows the profile, whatever its values.
    @Test func anotherNamespaceStandsWhileItExists() {
        #expect(SharedDiffOverlay.stands(lookup, for: Query(.todos), in: collections(showing: "ann")))
        #expect(SharedDiffOverlay.stands(lookup, for: Query(.todos), in: collections(showing: "bob")))
        #expect(!SharedDiffOverlay.stands(lookup, for: Query(.todos), in: collections(showing: nil)))
    }

    /// The view's own namespace, a query with includes, or no query: only the same record stands.
    @Test func otherwiseOnlyTheSameRecordStands() {
        for q: Query? in [Query(.profiles), Query(.posts, include: .forward(.author)), Query(.todos, include: .forward(.author)), nil] {
            #expect(SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: "ann")))
            #expect(!SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: "bob")))
            #expect(!SharedDiffOverlay.stands(lookup, for: q, in: collections(showing: nil)))
        }
        // A lookup that found nothing stands only while nothing is shown.
        let none: (id: EntityID, record: EntityRecord?) = (profile, nil)
        #expect(SharedDiffOverlay.stands(none, for: Query(.todos), in: collections(showing: nil)))
        #expect(!SharedDiffOverlay.stands(none, for: Query(.todos), in: collections(showing: "ann")))
    }
}

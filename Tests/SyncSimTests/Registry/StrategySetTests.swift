import Testing
@testable import SyncSim

/// Name resolution: exact names, suggestions for typos, and names that would break files or
/// command lines rejected up front.
@Suite struct StrategySetTests {
    @Test func resolvesAndSuggests() throws {
        let set = StrategySet.builtIns
        #expect(try set.resolve("pushPull").name == "pushPull")
        #expect(throws: UnknownStrategyError.self) { try set.resolve("intsant") }
        do {
            _ = try set.resolve("intsant")
        } catch let e as UnknownStrategyError {
            #expect(e.suggestions.first == "instant")
            #expect(e.message(for: "--strategy").contains("for --strategy (did you mean 'instant'?)"))
        }
        #expect(set.suggestions("pushpul").first == "pushPull")
        #expect(set.suggestions("reference2") == ["reference"])
        #expect(set.suggestions("zzzzzzzz").isEmpty)
    }

    @Test func selectKeepsTheSetsOrderAndAll() throws {
        let set = StrategySet.builtIns
        #expect(try set.select(["reference", "instant", "reference"]).map(\.name) == ["instant", "reference"])
        #expect(try set.select([]).count == 6)
        #expect(try set.select(["all"]).count == 6)
        #expect(throws: UnknownStrategyError.self) { try set.select(["all", "nope"]) }
    }

    @Test func rejectsDuplicateCaseCollidingAndUnsafeNames() {
        let probe = { (name: String) in AnyStrategy(Relabelled(ProbeStrategy(), name: name, contract: [])) }
        #expect(throws: StrategySetError.duplicateName("a")) { try StrategySet([probe("a"), probe("a")]) }
        #expect(throws: StrategySetError.namesEqualIgnoringCase("notes", "Notes")) { try StrategySet([probe("notes"), probe("Notes")]) }
        for bad in ["", "all", "a b", "../x", "-x", "x/y", "é", String(repeating: "x", count: 65)] {
            #expect(throws: StrategySetError.self, "\(bad)") { try StrategySet([probe(bad)]) }
        }
        #expect(throws: Never.self) { try StrategySet([probe("notes-sync_v2.1")]) }
    }
}

extension StrategySet {
    func suggestions(_ name: String) -> [String] { NameSuggestion.closest(to: name, in: names) }
}

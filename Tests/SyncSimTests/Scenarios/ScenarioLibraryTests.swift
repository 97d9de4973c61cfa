import Foundation
import Testing
import SyncSim

/// Every scenario file under `Scenarios/` is a regression test: for each strategy its `expect`
/// names, replaying the file must meet the expectation ("holds" = no violation; otherwise the
/// named invariant is among the violations). Adding a file adds a test case; nothing to register.
@Suite struct ScenarioLibraryTests {
    /// `Scenarios/` at the package root, found from this file's path
    /// (Tests/SyncSimTests/Scenarios/ScenarioLibraryTests.swift).
    static let root: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Scenarios")

    /// Every `*.json` under `Scenarios/`, recursively, as paths relative to it, sorted.
    static let files: [String] = {
        guard let walk = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        let base = root.standardizedFileURL.path + "/"
        return walk.compactMap { $0 as? URL }
            .filter { $0.pathExtension == "json" }
            .map { String($0.standardizedFileURL.path.dropFirst(base.count)) }
            .sorted()
    }()

    static func load(_ file: String) throws -> Scenario {
        try Scenario.load(path: root.appendingPathComponent(file).path)
    }

    @Test(arguments: files)
    func replayMeetsEveryExpectation(file: String) throws {
        let scenario = try Self.load(file)
        #expect(!scenario.expect.isEmpty, "\(file) records no expectation")
        #expect(StrategyRegistry.named(scenario.strategy) != nil, "\(file): unknown default strategy '\(scenario.strategy)'")
        for (name, expectation) in scenario.expect.sorted(by: { $0.key < $1.key }) {
            guard let strategy = StrategyRegistry.named(name) else {
                Issue.record("\(file): expect names unknown strategy '\(name)'")
                continue
            }
            let result = try simulate(strategy, scenario.schedule, seed: scenario.seed)
            let got = result.violations.map(\.invariant.rawValue)
            #expect(expectation.isMet(by: result.violations),
                    "\(file) [\(name)]: expected \(expectation), got \(got.isEmpty ? "no violation" : got.joined(separator: ", ")) — replay: swift run syncsim replay Scenarios/\(file) --strategy \(name)")
        }
    }

    /// Replays are pure functions of (strategy, schedule, seed): the default strategy twice gives
    /// the same trace hash.
    @Test(arguments: files)
    func replayIsDeterministic(file: String) throws {
        let scenario = try Self.load(file)
        let strategy = try #require(StrategyRegistry.named(scenario.strategy))
        let a = try simulate(strategy, scenario.schedule, seed: scenario.seed)
        let b = try simulate(strategy, scenario.schedule, seed: scenario.seed)
        #expect(a.traceHashHex == b.traceHashHex, "\(file) replays differently")
    }

    @Test func libraryIsLargeAndEveryFileCoversAllStrategies() throws {
        #expect(Self.files.count >= 15, "only \(Self.files.count) scenario files under \(Self.root.path)")
        let all = Set(StrategyRegistry.names)
        // The curated library names every strategy; shrinker output under found/ names the one
        // it was shrunk for (it still replays as a regression test above).
        for file in Self.files where !file.hasPrefix("found/") && !file.contains("/found/") {
            let scenario = try Self.load(file)
            let missing = all.subtracting(scenario.expect.keys)
            #expect(missing.isEmpty, "\(file): expect has no entry for \(missing.sorted().joined(separator: ", "))")
        }
    }
}

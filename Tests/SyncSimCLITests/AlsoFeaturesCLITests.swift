import Foundation
import Testing
import SyncSimCLI

/// `--also FEATURES` on `run`, `fuzz` and `shrink`: the generator's opt-in additions reach the
/// schedule, reproducibly; unknown names are refused with a suggestion; and the commands a
/// report prints to rerun a seed carry them, so a failure found with them replays.
@Suite struct AlsoFeaturesCLITests {
    static func run(_ args: [String]) -> (status: Int32, stdout: String, stderr: String) {
        NotesTool.run(args, strategies: AnyStrategy.builtIns)
    }

    static func traceHash(_ json: String) -> Substring? {
        json.firstRange(of: #""traceHash":""#).map { json[$0.upperBound...].prefix(16) }
    }

    @Test func eachFeatureChangesTheScheduleReproducibly() {
        for f in WorkloadFeature.allCases {
            // Some seed of a few must change: a feature drawn from its own stream may draw
            // nothing on one seed (rich queries only replace later subscriptions).
            var changed = false
            for seed in 0..<6 where !changed {
                let base = ["run", "--strategy", "pushPull", "--seed", "\(seed)", "--actions", "60", "--json"]
                let plain = Self.run(base)
                let a = Self.run(base + ["--also", f.rawValue])
                #expect(a.status == 0 || a.status == 1, "\(f): \(a.stderr)")
                #expect(a.stdout == Self.run(base + ["--also=\(f.rawValue)"]).stdout, "\(f): not reproducible")
                changed = Self.traceHash(a.stdout) != nil && Self.traceHash(a.stdout) != Self.traceHash(plain.stdout)
            }
            #expect(changed, "--also \(f) changed none of seeds 0..<6")
        }
    }

    @Test func unknownFeaturesAreRefusedWithASuggestion() {
        let r = Self.run(["run", "--strategy", "instant", "--seed", "1", "--also", "bulk,richQuerys"])
        #expect(r.status == 2 && r.stderr.contains("'richQuerys'") && r.stderr.contains("did you mean 'richQueries'"), "\(r.stderr)")
        let empty = Self.run(["fuzz", "--strategy", "instant", "--seeds", "0..1", "--also", "bulk,"])
        #expect(empty.status == 2 && empty.stderr.contains("--also"), "\(empty.stderr)")
    }

    @Test func rerunCommandsCarryTheFeatures() {
        var g = WorkloadGenerator.Config()
        WorkloadFeature.bulk.turnOn(in: &g)
        WorkloadFeature.userChoices.turnOn(in: &g)
        let c = ReplayCommands(prefix: "syncsim")
        #expect(c.run(strategy: "pushPull", seed: 3, generator: g).hasSuffix(" --also bulk,userChoices"))
        #expect(c.shrink(strategy: "pushPull", seed: 3, invariant: "convergence", generator: g).hasSuffix(" --also bulk,userChoices"))
        #expect(!c.run(strategy: "pushPull", seed: 3, generator: .init()).contains("--also"))
    }
}

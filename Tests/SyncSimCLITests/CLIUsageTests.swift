import Foundation
import Testing

/// Bad usage is exit 2 with a message that names the option and the valid values.
@Suite struct CLIUsageTests {
    @Test func unknownStrategyNamesTheOptionAndValidValues() throws {
        let o = try CLI.run(["run", "--strategy", "nope", "--seed", "1"])
        #expect(o.status == 2)
        #expect(o.stderr.contains("--strategy") && o.stderr.contains("instant"))
        let typo = try CLI.run(["run", "--strategy", "intsant", "--seed", "1"])
        #expect(typo.status == 2 && typo.stderr.contains("did you mean 'instant'?"))
    }

    @Test func badNumbersAreUsageErrors() throws {
        for args in [["run", "--strategy", "instant", "--seed", "-1"],
                     ["run", "--strategy", "instant", "--seed", "1", "--clients", "0"],
                     ["run", "--strategy", "instant", "--seed", "x"],
                     ["run", "--strategy", "instant", "--seed", "1", "--bogus"],
                     ["frobnicate"]] {
            let o = try CLI.run(args)
            #expect(o.status == 2, "\(args): \(o.stderr)")
            #expect(o.stderr.contains("error:"))
        }
    }

    @Test func helpTeaches() throws {
        let root = try CLI.run(["--help"])
        #expect(root.status == 0 && root.stdout.contains("run") && root.stdout.contains("EXAMPLES"))
        let run = try CLI.run(["run", "--help"])
        #expect(run.status == 0 && run.stdout.contains("--seed") && run.stdout.contains("EXIT CODES"))
    }

    @Test func jsonHasTheDocumentedKeys() throws {
        let o = try CLI.run(["run", "--strategy", "instant", "--seed", "42", "--json"])
        let j = try CLI.json(o.stdout)
        for k in ["strategy", "seed", "events", "traceHash", "violations"] { #expect(j[k] != nil, "missing \(k)") }
        // Exit code agrees with the contract verdict (1 only for a violation of a claimed invariant).
        #expect((o.status == 0) == (j["contractMet"] as? Bool == true))
    }

    @Test func listStrategiesShowsContracts() throws {
        let o = try CLI.run(["list", "strategies"])
        #expect(o.status == 0 && o.stdout.contains("instant") && o.stdout.contains("contract:"))
    }
}

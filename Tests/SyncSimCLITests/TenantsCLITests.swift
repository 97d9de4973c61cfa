import Foundation
import Testing
import SyncSimCLI

/// `--tenants N` on `run` (and `fuzz`, `shrink`): range-checked, reproducible, and refused with
/// `--history`, whose format has no tenant lines.
@Suite struct TenantsCLITests {
    static func run(_ args: [String]) -> (status: Int32, stdout: String, stderr: String) {
        NotesTool.run(args, strategies: AnyStrategy.builtIns)
    }

    @Test func runWithTenantsIsRangeCheckedAndDeterministic() {
        let a = Self.run(["run", "--strategy", "pushPull", "--seed", "7", "--actions", "30", "--tenants", "3", "--json"])
        #expect(a.status == 0, "\(a.stderr)")
        #expect(a.stdout == Self.run(["run", "--strategy", "pushPull", "--seed", "7", "--actions", "30", "--tenants", "3", "--json"]).stdout)
        for bad in ["1", "17", "x"] {
            let r = Self.run(["run", "--strategy", "pushPull", "--seed", "7", "--tenants", bad])
            #expect(r.status == 2 && r.stderr.contains("--tenants"), "\(bad): \(r.stderr)")
        }
        let h = Self.run(["run", "--strategy", "pushPull", "--seed", "7", "--tenants", "2", "--history", "/tmp/never-written.jsonl"])
        #expect(h.status == 2 && h.stderr.contains("--history cannot record tenants"), "\(h.stderr)")
    }
}

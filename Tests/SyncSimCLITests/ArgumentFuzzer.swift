import Foundation
import SyncSimCLI

/// A deterministic generator of hostile command lines for `SyncSimCLI.run`: for each case
/// index, a command, options drawn from that command's real ones and from typos of them, values
/// drawn from valid-but-cheap and invalid pools (overflowing numbers, signs, exponents, empty,
/// control characters, NUL bytes, very long strings, malformed ranges and shards), then
/// mutations (drop, duplicate, swap, `--opt=value`, junk, an option of another command).
///
/// Case `i` is a pure function of `(seed, i)`, so a failure is reproduced by its index alone.
/// Accepted command lines stay cheap and confined: every simulating command gets a short time
/// budget and tiny workloads unless the vector already sets them (then, if the vector repeats
/// them, it is rejected as repeated), and every output goes under `scratch`.
struct ArgumentFuzzer {
    let seed: UInt64
    /// A private folder for every file the commands may write.
    let scratch: String
    /// A scenario file, a folder holding it, a fuzz report folder and a plain file.
    let scenario: String, scenarioFolder: String, reportFolder: String, plainFile: String
    /// A history `check` accepts (exported from a run), so valid paths reach the judging.
    let history: String

    /// SplitMix64: tiny, deterministic, good enough to pick from lists.
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(n)) }
        mutating func pick<T>(_ a: [T]) -> T { a[below(a.count)] }
        mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
    }

    enum Kind { case flag, strategy, seed, range, count, shard, jobs, budget, clients, actions, invariant, out, benchCount, rounds, flat, long, contract, arbitration }

    static let options: [String: [(String, Kind)]] = [
        "fuzz": [("--strategy", .strategy), ("--seeds", .range), ("--count", .count), ("--start", .seed), ("--shard", .shard),
                 ("--jobs", .jobs), ("--time-budget", .budget), ("--stop-on-first", .flag), ("--no-shrink", .flag),
                 ("--report-dir", .out), ("--no-swarm", .flag), ("--swarm", .flag), ("--clients", .clients), ("--actions", .actions),
                 ("--quiet", .flag)],
        "run": [("--strategy", .strategy), ("--seed", .seed), ("--clients", .clients), ("--actions", .actions), ("--no-swarm", .flag),
                ("--trace", .flag), ("--json", .flag)],
        "replay": [("--strategy", .strategy), ("--quiet", .flag)],
        "shrink": [("--strategy", .strategy), ("--seed", .seed), ("--seeds", .range), ("--invariant", .invariant), ("--out", .out),
                   ("--clients", .clients), ("--actions", .actions), ("--no-swarm", .flag), ("--jobs", .jobs), ("--time-budget", .budget)],
        "merge": [("--report-dir", .out)],
        "list": [],
        "bench": [("--strategy", .strategy), ("--seeds", .benchCount), ("--jobs", .jobs), ("--rounds", .rounds), ("--flat", .flat), ("--long", .long), ("--json", .flag)],
        // `check` judging a file, and its --roundtrip mode (kept short by a budget, below).
        // --bench-events is left out: it writes as many lines as asked (up to 10 million), a
        // long run by design, not a defect this fuzzer can judge.
        "check": [("--contract", .contract), ("--arbitration", .arbitration), ("--json", .flag), ("--trace", .flag),
                  ("--report-dir", .out), ("--roundtrip", .range), ("--strategy", .strategy), ("--time-budget", .budget)],
        "help": [],
    ]
    static let commands = ["fuzz", "run", "replay", "shrink", "merge", "list", "bench", "check", "help"]

    static let junk = ["-x", "-", "--", "---", "--=", "=", "extra", "\u{0}", "é", "--\u{0}", "\u{1B}[31m", "🙂", "--help=no", "-H",
                       String(repeating: "a", count: 3000), "--" + String(repeating: "z", count: 300), " ", "--strategy=", "--seeds=="]

    /// Values of each kind, the first `valid(k)` of them valid and cheap (few seeds, few
    /// actions, short budgets), the rest invalid.
    func values(_ k: Kind) -> [String] {
        switch k {
        case .flag: return []
        case .strategy: return ["instant", "reference", "fullEntity", "all", "intsant", "", "INSTANT", "reference\u{0}", String(repeating: "x", count: 500)]
        case .seed: return ["0", "1", "2", "7", "-1", "18446744073709551615", "18446744073709551616", "99999999999999999999999", "1e3", "0x10", "", " 1", "٣", "+1"]
        case .range: return ["0..2", "0...1", "0..<2", "2..1", "0..", "..", "0....2", "18446744073709551614...18446744073709551614", "0..18446744073709551615",
                             "a..b", "1..<1", "3...2", "0..<-1", "-1..2", "18446744073709551615..<18446744073709551615", "0..2..3"]
        case .count: return ["1", "2", "3", "0", "100000001", "-3", "x", "18446744073709551616"]
        case .shard: return ["1/2", "2/2", "1/1", "0/2", "3/2", "1/0", "1/2/3", "/", "a/b", "-1/2", "1/9223372036854775808"]
        case .jobs: return ["1", "2", "2", "0", "1025", "-1", "9223372036854775808"]
        case .budget: return ["300ms", "0.2s", "0.4", "-1s", "inf", "nan", "1e9", "5x", "", "1.5.2s", "0x1", "-0", "1e-3", "99999999999999999999h"]
        case .clients: return ["1", "3", "26", "0", "27", "-1", "x"]
        case .actions: return ["1", "5", "9", "0", "100001", "-5", String(repeating: "9", count: 30)]
        case .invariant: return ["noResurrection", "convergence", "disjointFieldMerge", "noresurrection", "x", ""]
        case .out: return ["\(scratch)/out-a", "\(scratch)/out b/c", "\(scratch)/o", "", plainFile, "\(plainFile)/below"]
        case .benchCount: return ["0", "1000001", "-1", "x"]
        case .rounds: return ["1", "2", "0", "101", "-1", "x"]
        case .flat: return ["20,60", "200,3000", "3000,200", "5,5", "0,10", "1,100001", "1,2,3", ",", "", "1,", "x,y", "-1,2", "9223372036854775808,1"]
        case .long: return ["0", "100001", "-2"]
        case .contract: return ["instant", "noGhostDeletion,toldOutcomeIsTrue", "reference", "noGhostDeletion,,x", "", "intsant", "noghostdeletion",
                                String(repeating: "a,", count: 400), "\u{0}"]
        case .arbitration: return ["serverArrival", "hybridLogicalClock", "clientTimestamp", "server", "", "SERVERARRIVAL", "\u{1B}[31m"]
        }
    }

    func positionals(_ command: String) -> [String] {
        switch command {
        case "replay": return [scenario, scenarioFolder, "\(scratch)/missing.json", plainFile, reportFolder]
        case "merge": return [reportFolder, "\(scratch)/missing", plainFile, scenarioFolder, "/"]
        case "list": return ["strategies", "invariants", "strategy", "", "STRATEGIES"]
        case "help": return Self.commands + ["nope", "", "fuzzz"]
        case "check": return [history, scenario, plainFile, "\(scratch)/missing.jsonl", reportFolder, "\(reportFolder)/report.json"]
        default: return []
        }
    }

    /// The argument vector of case `index`.
    func vector(_ index: Int) -> [String] {
        var r = Random(state: seed ^ (UInt64(index) &* 0xD6E8_FEB8_6659_FD93))
        // A few root-level vectors: no command, version, help, unknown commands.
        if r.chance(6) { return r.pick([[], ["--version"], ["--help"], ["-h"], ["version"], ["fuz"], ["FUZZ"], ["--version", "x"], [""], ["\u{0}"]]) }
        let command = r.pick(Self.commands)
        let table = Self.options[command] ?? []
        var argv: [String] = [command]
        // Often the required arguments first, so mutations act on commands that would run.
        if r.chance(60) {
            switch command {
            case "run": argv += ["--strategy", r.pick(["instant", "reference", "sharedDiff"]), "--seed", r.pick(["0", "1", "2"])]
            case "shrink": argv += ["--strategy", r.pick(["fullEntity", "sharedDiff"])] + (r.chance(50) ? ["--seed", "0"] : ["--seeds", "0..2"])
            case "replay": argv.append(r.pick([scenario, scenarioFolder]))
            case "merge": argv.append(reportFolder)
            case "check": argv.append(history)
            default: break
            }
        }
        // Options, mostly the command's own, in random order.
        for _ in 0..<r.below(5) {
            guard !table.isEmpty else { break }
            let (name, kind) = r.pick(table)
            var spelled = name
            if r.chance(8) { spelled = Self.typo(name, &r) }
            if kind == .flag { argv.append(spelled); continue }
            let pool = values(kind)
            // Half the time a valid value, so accepted commands are reached too.
            let value = r.chance(50) ? pool[r.below(min(3, pool.count))] : r.pick(pool)
            if r.chance(25) { argv.append("\(spelled)=\(value)") } else { argv += [spelled, value] }
        }
        let pos = positionals(command)
        if !pos.isEmpty { for _ in 0..<r.below(3) { argv.append(r.pick(pos)) } }
        // Mutations.
        for _ in 0..<r.below(3) {
            guard argv.count > 1 else { break }
            let i = 1 + r.below(argv.count - 1)
            switch r.below(5) {
            case 0: argv.remove(at: i)
            case 1: argv.insert(argv[i], at: i)
            case 2: if i + 1 < argv.count { argv.swapAt(i, i + 1) }
            case 3: argv[i] = r.pick(Self.junk)
            default:
                let other = Self.options[r.pick(Self.commands)] ?? []
                if let (name, kind) = other.isEmpty ? nil : r.pick(other) {
                    argv.insert(contentsOf: kind == .flag ? [name] : [name, r.pick(values(kind))], at: i)
                }
            }
        }
        return confined(argv, command: command)
    }

    /// Keeps an accepted command cheap and its files under `scratch`: adds what the vector does
    /// not set itself (a short budget, a tiny workload, an output path).
    func confined(_ argv: [String], command: String) -> [String] {
        func has(_ o: String) -> Bool { argv.contains { $0 == o || $0.hasPrefix(o + "=") } }
        var a = argv
        // Output paths a mutation made relative (`é`, `-H`) would land in the test's working
        // folder, the package: anchor them under scratch, keeping the hostile name. (Relative
        // names themselves are tested on a subprocess with its own working folder.)
        for i in a.indices where a[i] == "--report-dir" || a[i] == "--out" {
            if i + 1 < a.count, !a[i + 1].hasPrefix("/"), !a[i + 1].isEmpty, !a[i + 1].hasPrefix("--") { a[i + 1] = "\(scratch)/\(a[i + 1])" }
        }
        for o in ["--report-dir=", "--out="] {
            for i in a.indices where a[i].hasPrefix(o) {
                let v = String(a[i].dropFirst(o.count))
                if !v.isEmpty && !v.hasPrefix("/") { a[i] = o + "\(scratch)/\(v)" }
            }
        }
        switch command {
        case "fuzz":
            if !has("--time-budget") { a += ["--time-budget", "300ms"] }
            if !has("--report-dir") { a += ["--report-dir", "\(scratch)/fuzz"] }
            if !has("--actions") { a += ["--actions", "5"] }
            if !has("--seeds") && !has("--count") { a += ["--count", "2"] }
        case "shrink":
            if has("--seeds") && !has("--time-budget") { a += ["--time-budget", "300ms"] }
            if !has("--seeds") && !has("--out") { a += ["--out", "\(scratch)/shrunk.json"] }
            if !has("--actions") { a += ["--actions", "5"] }
        case "run":
            if !has("--actions") { a += ["--actions", "5"] }
        case "merge":
            if !has("--report-dir") { a += ["--report-dir", "\(scratch)/merged"] }
        case "check":
            if has("--roundtrip") && !has("--time-budget") { a += ["--time-budget", "300ms"] }
        case "bench":
            // Benchmarks are long by design: only their parsing is fuzzed (this makes it refuse).
            a += ["--long", "0"]
        default: break
        }
        return a
    }

    static func typo(_ name: String, _ r: inout Random) -> String {
        var chars = Array(name)
        switch r.below(4) {
        case 0: chars.remove(at: 2 + r.below(chars.count - 2))
        case 1: chars.insert("x", at: 2 + r.below(chars.count - 2))
        case 2: return name.uppercased()
        default: return String(name.dropFirst())
        }
        return String(chars)
    }
}

/// Runs fuzzer cases in-process and checks each outcome.
enum ArgumentFuzzRun {
    struct Finding: CustomStringConvertible {
        var index: Int
        var argv: [String]
        var problem: String
        var description: String { "case \(index) \(argv.map { shownInFinding($0) }): \(problem)" }
    }

    struct Summary {
        var cases = 0
        var byStatus: [Int32: Int] = [:]
        /// Per command: (cases, accepted: exit 0 or 1).
        var byCommand: [String: (cases: Int, accepted: Int)] = [:]
        var slowest: (seconds: Double, index: Int) = (0, -1)
        var findings: [Finding] = []
    }

    /// Checks one outcome: exit 0, 1 or 2; a rejection (2) is one `error:` sentence naming what
    /// was wrong (an option or a quoted value) with no control characters, crash text or
    /// Foundation dump; an acceptance prints no error.
    static func problem(status: Int32, stderr: String) -> String? {
        guard [0, 1, 2].contains(status) else { return "exit status \(status)" }
        for bad in ["Fatal error", "Error Domain", "DecodingError(", "NSCocoaErrorDomain", "codingPath:"] where stderr.contains(bad) {
            return "stderr contains '\(bad)': \(stderr.prefix(300))"
        }
        if stderr.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\r") || $0.value == 0x7F }) {
            return "stderr contains a raw control character: \(stderr.debugDescription.prefix(300))"
        }
        if status == 2 {
            guard let first = stderr.split(separator: "\n").first(where: { $0.hasPrefix("error: ") }) else {
                return "a rejection without an 'error: ' line: \(stderr.prefix(300))"
            }
            if !(first.contains("--") || first.contains("'") || first.contains("/")) {
                return "a rejection that names no option, value or file: \(first.prefix(300))"
            }
            if stderr.utf8.count > 6_000 { return "a rejection of \(stderr.utf8.count) bytes" }
        } else if stderr.contains("error:") {
            return "exit \(status) with an error on stderr: \(stderr.prefix(300))"
        }
        return nil
    }

    static func run(_ fuzzer: ArgumentFuzzer, cases: Range<Int>) -> Summary {
        var s = Summary()
        for i in cases {
            let argv = fuzzer.vector(i)
            let captured = CapturedOutput()
            let t0 = Date()
            let status = SyncSimCLI.run(arguments: argv, strategies: AnyStrategy.builtIns, commandName: "syncsim", output: captured.output)
            let dt = Date().timeIntervalSince(t0)
            s.cases += 1
            s.byStatus[status, default: 0] += 1
            let command = argv.first.map { ArgumentFuzzer.commands.contains($0) ? $0 : "(other)" } ?? "(none)"
            s.byCommand[command, default: (0, 0)].cases += 1
            if status != 2 { s.byCommand[command, default: (0, 0)].accepted += 1 }
            if dt > s.slowest.seconds { s.slowest = (dt, i) }
            if let p = problem(status: status, stderr: captured.stderr) { s.findings.append(Finding(index: i, argv: argv, problem: p)) }
        }
        return s
    }
}

/// A value as a finding shows it (control characters escaped, long values cut).
func shownInFinding(_ s: String) -> String {
    let escaped = s.unicodeScalars.map { $0.value < 0x20 ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    return escaped.count > 80 ? String(escaped.prefix(80)) + "…" : escaped
}

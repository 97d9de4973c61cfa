/// How much an explanation may spend. Each question (drop this action, move it 4 ms later, give
/// it another client) is one simulation of the shrunk schedule; a shrunk story of ten actions
/// typically needs a few hundred.
///
/// Why a budget at all: a scenario file is input like any other, and a long one (a thousand
/// unshrunk actions) would otherwise cost tens of thousands of runs. When the budget or `stop`
/// ends the replays, the explanation says so (`Explanation.complete == false`) and the parts it
/// did not reach carry no verdict; it is never a guess.
public struct ExplainBudget: Sendable {
    /// Simulations at most (≥ 1).
    public var maxRuns: Int
    /// Random continuations tried per prefix for the point of no return (the empty one, healing
    /// at once, included); 0 skips the point of no return.
    public var suffixes: Int
    /// How far past the last action (ms) an action is moved when its window is searched.
    public var horizonMs: Int64
    /// Asked before every simulation (a deadline, Ctrl-C); runs inside obey `RunStop.current`
    /// as well. Must stay true once true.
    public var shouldStop: @Sendable () -> Bool

    public init(maxRuns: Int = 2_000, suffixes: Int = 8, horizonMs: Int64 = 10_000,
                shouldStop: @escaping @Sendable () -> Bool = { false }) {
        self.maxRuns = maxRuns
        self.suffixes = suffixes
        self.horizonMs = horizonMs
        self.shouldStop = shouldStop
    }

    public static let maxRunsRange = 1...1_000_000
    public static let suffixesRange = 0...1_000
}

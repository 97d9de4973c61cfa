import Foundation

/// Seed ranges that change from one CI run to the next, so a sweep keeps exploring instead of
/// replaying seeds 0..<200 forever, yet every run stays reproducible: the range is printed, and
/// `--seeds <printed range>` replays it exactly.
///
/// Two sources, both outside the library's determinism: a start drawn by the command line from
/// the system's generator (`--seeds random`), or a start CI sets per run in
/// `SYNCSIM_SEED_START` (e.g. `${{ github.run_number }}000`, disjoint ranges of up to 1000 seeds
/// per run). Only the command line reads either; the library just checks the arithmetic.
public enum FreshSeeds {
    /// The environment variable a CI job sets to a run's first seed.
    public static let environmentVariable = "SYNCSIM_SEED_START"
    /// Random starts are drawn below this (10¹²), so printed ranges stay short to read and type,
    /// and the sweep is far from `UInt64.max` whatever the count.
    public static let randomStartBound: UInt64 = 1_000_000_000_000

    /// `count` seeds from a drawn value (any `UInt64`; reduced below `randomStartBound`).
    public static func random(draw: UInt64, count: UInt64) throws -> SeedRange {
        try SeedRange(start: draw % randomStartBound, count: count)
    }

    /// `count` seeds from the value of `SYNCSIM_SEED_START`: a whole number, checked like
    /// `--start`, with a message that names the variable.
    public static func fromEnvironment(_ value: String, count: UInt64) throws(FreshSeedsError) -> SeedRange {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }), let start = UInt64(trimmed) else {
            throw .notASeed(value)
        }
        do {
            return try SeedRange(start: start, count: count)
        } catch {
            throw .pastLargestSeed(start: start, count: count)
        }
    }
}

public enum FreshSeedsError: Error, Equatable, CustomStringConvertible {
    case notASeed(String)
    case pastLargestSeed(start: UInt64, count: UInt64)

    public var description: String {
        switch self {
        case .notASeed(let v):
            return "\(FreshSeeds.environmentVariable)='\(JSONText.clipped(v, 40))' is not a seed: expected a whole number in 0…\(UInt64.max) (CI sets it per run, e.g. ${{ github.run_number }}000); unset it to start at 0"
        case .pastLargestSeed(let start, let count):
            return "\(FreshSeeds.environmentVariable)=\(start) with \(count) seeds runs past the largest seed, \(UInt64.max); use a smaller start"
        }
    }
}

/// The median and the spread of repeated measurements, as `bench` reports them.
///
/// Why medians of several rounds: on a shared machine one timing can be off by a third either
/// way (seen here: the same binary's one-job to two-jobs speed-up read anywhere from ×1.4 to
/// ×2.9 in single pairs). `bench` therefore alternates its one-job and many-jobs sweeps round by
/// round, so a slow spell of the machine lands on both sides of a pair, and reports the median of
/// the pairs' ratios with their minimum and maximum: one slow or one lucky round cannot move it,
/// and a wide spread says the machine was noisy.
struct BenchSpread: Encodable, Equatable {
    var median: Double
    var min: Double
    var max: Double

    init(median: Double, min: Double, max: Double) {
        self.median = median
        self.min = min
        self.max = max
    }

    /// The spread of `values` (which must not be empty; an empty list reads as zeros). An even
    /// count's median is the mean of the two middle values.
    init(_ values: [Double]) {
        let s = values.sorted()
        guard let first = s.first, let last = s.last else {
            self.median = 0; self.min = 0; self.max = 0
            return
        }
        let n = s.count
        self.median = n % 2 == 1 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2
        self.min = first
        self.max = last
    }

    /// The spread of `a[i] / b[i]`, pair by pair (a zero divisor's pair is left out).
    static func ratios(_ a: [Double], _ b: [Double]) -> BenchSpread {
        BenchSpread(zip(a, b).compactMap { $1 > 0 ? $0 / $1 : nil })
    }
}

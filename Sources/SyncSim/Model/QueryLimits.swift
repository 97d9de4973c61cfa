/// The bounds every query in a schedule, scenario file or history must respect, checked when it
/// is read and again when a schedule is compiled.
///
/// Why: a query is input, and evaluating one walks the store once per include node and once per
/// condition node per record. With these bounds a query costs at most a constant number of passes
/// over the store, whatever a file says, and a link cycle (post → author → posts → …) is cut by
/// the depth bound: each level is a level of the include tree, never a walk of the link graph.
public enum QueryLimits {
    /// Levels of nested includes below the roots: 1 … 4 (post → author → posts → comments).
    public static let includeDepth = 4
    /// Include nodes in one query's tree (siblings included).
    public static let includeNodes = 8
    /// Values in one `$in` list.
    public static let inValues = 32
    /// Nesting of `and`/`or` in a `where`.
    public static let conditionDepth = 4
    /// Nodes (comparisons, `$in`, `and`, `or`) in one `where`.
    public static let conditionNodes = 32
    /// A query's `limit`: 1 … 10,000 roots.
    public static let limits: ClosedRange<Int> = 1...10_000
}

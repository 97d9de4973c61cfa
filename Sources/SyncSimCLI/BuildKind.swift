/// Whether this binary was compiled without optimisation. A debug build simulates several times
/// slower, so long commands say so on standard error (a budgeted fuzz run then covers far fewer
/// seeds than the same budget in a release build).
enum BuildKind {
    static var isDebug: Bool {
        #if DEBUG
        return true
        #else
        return false
        #endif
    }

    /// The note long-running commands print on standard error in a debug build.
    static func debugNote(_ tool: String) -> String {
        "note: this is a debug build of \(tool), several times slower than a release build; for large runs use: swift build -c release && .build/release/\(tool)"
    }
}

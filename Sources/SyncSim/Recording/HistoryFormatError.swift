/// A history file that is not what the format says: which line, where in it (column and JSON
/// path), and what to do. `syncsim check` prints it as `file:line:column: path: message` and
/// exits 2. Never a crash: every line of a history is hostile input until it has been checked.
public struct HistoryFormatError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file, as named on the command line (empty for in-memory input).
    public var file: String
    /// 1-based line number in the file (0: the file as a whole).
    public var line: Int
    /// 1-based column inside the line, when known (0: not known).
    public var column: Int
    /// JSON path inside the line's object (`ops[2].set.title`), empty for the line as a whole.
    public var path: String
    public var message: String

    public init(file: String = "", line: Int, column: Int = 0, path: String = "", message: String) {
        self.file = file
        self.line = line
        self.column = column
        self.path = path
        self.message = message
    }

    public var description: String {
        var s = file.isEmpty ? "history" : file
        if line > 0 { s += ":\(line)" }
        if column > 0 { s += ":\(column)" }
        return s + ": " + (path.isEmpty ? "" : path + ": ") + JSONText.sanitized(message, limit: 1_000)
    }
}

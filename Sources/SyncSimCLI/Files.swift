import Foundation

/// Writes a file atomically: a temporary file in the same folder, then a rename. A reader (or a
/// crash) never sees a half-written file, and an existing file is replaced only when the new one
/// is complete.
func writeAtomically(_ text: String, to path: String) throws {
    let url = URL(fileURLWithPath: path)
    let dir = url.deletingLastPathComponent()
    try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
    let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())")
    try Data(text.utf8).write(to: tmp)
    if rename(tmp.path, url.path) != 0 {
        try? FileManager.default.removeItem(at: tmp)
        throw UsageError("cannot write \(path): \(String(cString: strerror(errno)))")
    }
}

/// Standard error is a terminal (live progress lines) or not (plain periodic lines for CI logs).
var stderrIsTerminal: Bool { isatty(2) != 0 }

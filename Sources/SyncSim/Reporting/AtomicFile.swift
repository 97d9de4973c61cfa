import Foundation

/// Writes files atomically: a temporary file in the same folder, then a rename. A reader (a CI
/// step uploading a report, a merge running next to a fuzz) or a crash never sees a half-written
/// file, and an existing file is replaced only once the new one is complete. A failed write
/// removes its temporary file.
///
/// File I/O happens here and in `ReportWriter`, outside every simulation: the fuzz driver calls
/// them after runs and shrinks finish. Errors are plain sentences from the system's own
/// reason (`strerror`), never a Foundation error dump.
public enum AtomicFile {
    /// Writes `text` as UTF-8 to `path`, creating missing folders.
    public static func write(_ text: String, to path: String) throws {
        guard !path.utf8.contains(0) else { throw ReportFileError(path: path.replacingOccurrences(of: "\0", with: "\\0"), message: "the path contains a NUL byte") }
        let (dir, name) = split(path)
        guard !name.isEmpty else { throw ReportFileError(path: path, message: "cannot write: the path names a folder, not a file") }
        try createFolder(dir.isEmpty ? "." : dir, for: path)
        // Unique per process and per call: threads writing different files never share a
        // temporary name, nor do two processes writing into one folder.
        let tmp = (dir.isEmpty ? "" : dir + "/") + ".\(name).tmp-\(getpid())-\(TemporaryNames.next())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_TRUNC, 0o644)
        guard fd >= 0 else { throw ReportFileError(path: path, message: "cannot write: \(reason())") }
        var bytes = Array(text.utf8)
        var failure: String?
        bytes.withUnsafeMutableBytes { buf in
            var off = 0
            while off < buf.count {
                let n = Foundation.write(fd, buf.baseAddress! + off, buf.count - off)
                if n < 0 && errno == EINTR { continue }
                if n <= 0 { failure = reason(); return }
                off += n
            }
        }
        if close(fd) != 0 && failure == nil { failure = reason() }
        if failure == nil && rename(tmp, path) != 0 { failure = reason() }
        if let failure {
            unlink(tmp)
            throw ReportFileError(path: path, message: "cannot write: \(failure)")
        }
    }

    /// Creates `dir` and its missing parents (`mkdir -p`); the error names what is in the way.
    static func createFolder(_ dir: String, for path: String) throws {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw ReportFileError(path: path, message: "cannot create it: \(dir) is a file, not a folder") }
            return
        }
        let parent = split(dir).folder
        if !parent.isEmpty && parent != dir { try createFolder(parent, for: path) }
        if mkdir(dir, 0o755) != 0 && errno != EEXIST {
            throw ReportFileError(path: path, message: "cannot create the folder \(dir): \(reason())")
        }
    }

    /// A path's folder and last component, by its bytes: `a/b/c` → (`a/b`, `c`), `/c` → (`/`,
    /// `c`), `c` → (``, `c`), `a/b/` → (`a`, `b`). Not Foundation's path functions: on Linux they
    /// trap on some hostile paths (found by the CLI argument fuzzer).
    static func split(_ path: String) -> (folder: String, name: String) {
        var bytes = Array(path.utf8)
        while bytes.count > 1 && bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return ("", String(decoding: bytes, as: UTF8.self)) }
        let name = String(decoding: bytes[(slash + 1)...], as: UTF8.self)
        var folder = Array(bytes[..<slash])
        while folder.count > 1 && folder.last == UInt8(ascii: "/") { folder.removeLast() }
        return (folder.isEmpty ? "/" : String(decoding: folder, as: UTF8.self), name)
    }

    /// The system's reason for the last failed call, as a sentence fragment.
    static func reason() -> String { String(cString: strerror(errno)).lowercased() }
}

/// A report or scenario file that cannot be written or read; names the file and the reason.
public struct ReportFileError: Error, Equatable, CustomStringConvertible {
    public var path: String
    public var message: String
    public init(path: String, message: String) {
        self.path = path
        self.message = message
    }
    public var description: String { "\(path): \(message)" }
}

/// A process-wide counter for temporary file names.
private enum TemporaryNames {
    nonisolated(unsafe) static var counter = 0
    static let lock = NSLock()
    static func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        counter += 1
        return counter
    }
}

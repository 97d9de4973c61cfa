import Foundation

/// Writes files atomically: a temporary file in the same folder, then a rename. A reader (a CI
/// step uploading a report, a merge running next to a fuzz) or a crash never sees a half-written
/// file, and an existing file is replaced only once the new one is complete.
///
/// File I/O happens here and in `ReportWriter`, outside every simulation: the fuzz driver calls
/// them after runs and shrinks finish.
public enum AtomicFile {
    /// Writes `text` as UTF-8 to `path`, creating missing folders.
    public static func write(_ text: String, to path: String) throws {
        let url = URL(fileURLWithPath: path)
        let dir = url.deletingLastPathComponent()
        do {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        } catch {
            throw ReportFileError(path: path, message: "cannot create folder \(dir.path): \(error.localizedDescription)")
        }
        // Unique per process and per call: threads writing different files never share a
        // temporary name, nor do two processes writing into one folder.
        let tmp = dir.appendingPathComponent(".\(url.lastPathComponent).tmp-\(getpid())-\(TemporaryNames.next())")
        do {
            try Data(text.utf8).write(to: tmp)
        } catch {
            try? FileManager.default.removeItem(at: tmp)
            throw ReportFileError(path: path, message: "cannot write: \(error.localizedDescription)")
        }
        if rename(tmp.path, url.path) != 0 {
            let reason = String(cString: strerror(errno))
            try? FileManager.default.removeItem(at: tmp)
            throw ReportFileError(path: path, message: "cannot write: \(reason)")
        }
    }
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

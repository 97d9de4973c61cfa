import Foundation

/// A folder of scenario files that `fuzz` replays before exploring seeds: the failures found
/// before (by `shrink`, or saved by `fuzz --save-failures`), so a CI run that explores fresh
/// seeds never forgets a failure an earlier run found. The default folder is `Scenarios/found/`,
/// where `syncsim shrink` writes, and which `ScenarioLibraryTests` also replays.
///
/// Each file is an ordinary scenario (same format, same checks, same errors naming file,
/// line:column and JSON path); each `expect` entry for a fuzzed strategy is one known outcome to
/// check: `"<invariant>"` a recorded failure (still failing, or fixed), `"holds"` a recorded pass
/// (still holding, or regressed).
public struct FailureDatabase: Sendable {
    public struct Entry: Sendable {
        /// The path as found (the folder joined with the path below it).
        public var file: String
        public var scenario: Scenario
    }

    /// The folder as given.
    public var folder: String
    /// Files in sorted path order (so replays and reports never depend on the file system's order).
    public var entries: [Entry]

    /// At most this many files: a folder is input, and a huge one must be an error, not hours
    /// of replays or memory exhausted.
    public static let maxFiles = 10_000
    /// At most this many bytes in all (each file is also held to `ScenarioLimits.maxFileBytes`).
    public static let maxTotalBytes = 64 << 20

    public init(folder: String, entries: [Entry]) {
        self.folder = folder
        self.entries = entries
    }

    /// Loads every `*.json` under `folder`, recursively. A missing folder is an empty database
    /// when `mustExist` is false (the default folder before the first failure is saved).
    /// - Parameter strategies: names the tool can run; every `expect` key must be one of them
    ///   (nil: any name; entries for strategies not fuzzed are simply not replayed).
    /// - Throws: `ScenarioError` for a bad file or folder.
    public static func load(folder: String, strategies: [String]?, mustExist: Bool) throws -> FailureDatabase {
        var isDir: ObjCBool = false
        guard FileManager.default.fileExists(atPath: folder, isDirectory: &isDir) else {
            if mustExist { throw ScenarioError(file: folder, path: "", message: "no such folder; name the folder of known failures (scenario files), or leave --failures out") }
            return FailureDatabase(folder: folder, entries: [])
        }
        guard isDir.boolValue else {
            throw ScenarioError(file: folder, path: "", message: "not a folder; --failures names a folder of scenario files")
        }
        var files: [String] = []
        if let walk = FileManager.default.enumerator(atPath: folder) {
            while let item = walk.nextObject() as? String {
                guard item.hasSuffix(".json") else { continue }
                files.append(item)
                if files.count > maxFiles {
                    throw ScenarioError(file: folder, path: "", message: "holds more than \(maxFiles) scenario files; split the database or prune fixed failures")
                }
            }
        }
        files.sort { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        // Regular files only, checked before any is opened: a FIFO named x.json would block a
        // read forever, and the total size bounds the memory the decoded scenarios take.
        var total = 0
        for rel in files {
            let path = (folder as NSString).appendingPathComponent(rel)
            var st = stat()
            guard stat(path, &st) == 0 else { continue }   // a dangling link: not a file
            if (st.st_mode & S_IFMT) == S_IFDIR { continue } // a folder named *.json: walked into
            guard (st.st_mode & S_IFMT) == S_IFREG else {
                throw ScenarioError(file: path, path: "", message: "not a regular file (a device, FIFO or socket); remove it from the failures folder")
            }
            total += Int(st.st_size)
            if total > maxTotalBytes {
                throw ScenarioError(file: folder, path: "", message: "holds more than \(maxTotalBytes >> 20) MB of scenario files; prune fixed failures or split the folder")
            }
        }
        let entries = try files.compactMap { rel -> Entry? in
            let path = (folder as NSString).appendingPathComponent(rel)
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDir), !isDir.boolValue else { return nil }
            return Entry(file: path, scenario: try Scenario.load(path: path, strategies: strategies))
        }
        return FailureDatabase(folder: folder, entries: entries)
    }

    /// The file name a new failure is saved under: as `syncsim shrink` names it.
    public static func fileName(strategy: String, invariant: String, seed: UInt64) -> String {
        "\(strategy)-\(invariant)-seed\(seed).json"
    }
}

import Foundation

/// Writes a report folder's four files (`report.json`, `report.md`, `report.html`,
/// `junit.xml`), each atomically, and reads `report.json` back (for `merge`).
public enum ReportWriter {
    public static let fileNames = ["report.json", "report.md", "report.html", "junit.xml"]

    /// The largest `report.json` `load` reads (a million runs take about 600 MB): a bigger or
    /// endless file (`/dev/zero`) is refused instead of exhausting memory.
    public static let maxReportBytes = 2 << 30

    /// Checks, before any simulation, that `dir` can hold a report: not empty, not a file,
    /// creatable and writable (proved by writing and removing a probe file). A run that could
    /// never write its report fails at once instead of after hours of fuzzing.
    public static func prepareFolder(_ dir: String) throws {
        guard !dir.isEmpty else {
            throw ReportFileError(path: "\"\"", message: "the report folder is an empty path; name a folder, e.g. Reports/run-1")
        }
        guard !dir.utf8.contains(0) else {
            throw ReportFileError(path: dir.replacingOccurrences(of: "\0", with: "\\0"), message: "the report folder's path contains a NUL byte")
        }
        let probe = "\(dir)/.syncsim-probe-\(getpid())"
        try AtomicFile.write("", to: probe)
        unlink(probe)
    }

    public static func write(_ r: FuzzReport, to dir: String) throws {
        try AtomicFile.write(json(r), to: "\(dir)/report.json")
        try AtomicFile.write(MarkdownReport.render(r), to: "\(dir)/report.md")
        try AtomicFile.write(HTMLReport.render(r), to: "\(dir)/report.html")
        try AtomicFile.write(JUnitReport.render(r), to: "\(dir)/junit.xml")
    }

    /// `report.json`'s text: sorted keys, so the same report is the same bytes.
    public static func json(_ r: FuzzReport) throws -> String {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        return String(decoding: try e.encode(r), as: UTF8.self) + "\n"
    }

    /// Reads `dir/report.json`: a regular file of at most `maxReportBytes`. Errors name the
    /// file, the JSON path and what is wrong, in a sentence.
    public static func load(_ dir: String) throws -> FuzzReport {
        let path = "\(dir)/report.json"
        let data = try readRegularFile(path, limit: maxReportBytes, what: "report.json (is \(dir) a fuzz report folder?)")
        do {
            return try JSONDecoder().decode(FuzzReport.self, from: data)
        } catch let e as DecodingError {
            throw ReportFileError(path: path, message: "not a syncsim fuzz report: \(describe(e))")
        } catch {
            throw ReportFileError(path: path, message: "not a syncsim fuzz report: the file is not valid JSON")
        }
    }

    /// The bytes of a regular file (never a folder, a device or a FIFO) of at most `limit`
    /// bytes; symbolic links are followed only by the caller's choice of path.
    static func readRegularFile(_ path: String, limit: Int, what: String) throws -> Data {
        var st = stat()
        guard stat(path, &st) == 0 else { throw ReportFileError(path: path, message: "cannot read \(what): \(AtomicFile.reason())") }
        guard (st.st_mode & S_IFMT) == S_IFREG else { throw ReportFileError(path: path, message: "cannot read \(what): not a regular file") }
        guard Int(st.st_size) <= limit else {
            throw ReportFileError(path: path, message: "cannot read \(what): \(st.st_size) bytes is more than the \(limit) bytes allowed")
        }
        guard let data = FileManager.default.contents(atPath: path), data.count <= limit else {
            throw ReportFileError(path: path, message: "cannot read \(what)")
        }
        return data
    }

    /// A decoding error as a sentence: where (a JSON path such as `strategies[2].name`) and what.
    static func describe(_ e: DecodingError) -> String {
        func where_(_ c: DecodingError.Context, _ key: CodingKey? = nil) -> String {
            var p = ""
            for k in c.codingPath + (key.map { [$0] } ?? []) {
                if let i = k.intValue { p += "[\(i)]" } else { p += (p.isEmpty ? "" : ".") + k.stringValue }
            }
            return p.isEmpty ? "at the top level" : "at \(p)"
        }
        switch e {
        case .typeMismatch(let t, let c): return "\(where_(c)): expected \(t)"
        case .valueNotFound(let t, let c): return "\(where_(c)): expected \(t), found null"
        case .keyNotFound(let k, let c): return "\(where_(c, k)): missing"
        case .dataCorrupted(let c):
            return c.codingPath.isEmpty ? "the file is not valid JSON" : "\(where_(c)): \(c.debugDescription)"
        @unknown default: return "the file does not have the shape of a report"
        }
    }
}

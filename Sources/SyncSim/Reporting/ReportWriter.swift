import Foundation

/// Writes a report folder's four files (`report.json`, `report.md`, `report.html`,
/// `junit.xml`), each atomically, and reads `report.json` back (for `merge`).
public enum ReportWriter {
    public static let fileNames = ["report.json", "report.md", "report.html", "junit.xml"]

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

    public static func load(_ dir: String) throws -> FuzzReport {
        let path = "\(dir)/report.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ReportFileError(path: path, message: "cannot read (is \(dir) a fuzz report folder?)")
        }
        do {
            return try JSONDecoder().decode(FuzzReport.self, from: data)
        } catch {
            throw ReportFileError(path: path, message: "not a syncsim fuzz report (\(error))")
        }
    }
}

import Foundation
import SyncSim

/// Writes the four report files, each atomically (temporary file + rename).
enum ReportWriter {
    static func write(_ r: FuzzReport, to dir: String) throws {
        let e = JSONEncoder()
        e.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        try writeAtomically(String(decoding: try e.encode(r), as: UTF8.self) + "\n", to: "\(dir)/report.json")
        try writeAtomically(MarkdownReport.render(r), to: "\(dir)/report.md")
        try writeAtomically(HTMLReport.render(r), to: "\(dir)/report.html")
        try writeAtomically(JUnitReport.render(r), to: "\(dir)/junit.xml")
    }

    static func load(_ dir: String) throws -> FuzzReport {
        let path = "\(dir)/report.json"
        guard let data = FileManager.default.contents(atPath: path) else {
            throw UsageError("\(path): cannot read (is \(dir) a fuzz report folder?)")
        }
        do {
            return try JSONDecoder().decode(FuzzReport.self, from: data)
        } catch {
            throw UsageError("\(path): not a syncsim fuzz report (\(error))")
        }
    }
}

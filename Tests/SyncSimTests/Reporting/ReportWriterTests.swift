import Foundation
import Testing
@testable import SyncSim

/// The report folder and its files: checked before anything runs, written atomically, read
/// back with errors that are sentences naming the file and the JSON path.
@Suite struct ReportWriterTests {
    static func tmp(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("syncsim-writer-\(getpid())-\(name)").path
    }

    @Test func aFolderThatCannotHoldAReportIsRefused() throws {
        #expect(throws: ReportFileError.self) { try ReportWriter.prepareFolder("") }
        let file = Self.tmp("file")
        FileManager.default.createFile(atPath: file, contents: Data())
        for dir in [file, "\(file)/sub", "\(file)/sub/deeper"] {
            do {
                try ReportWriter.prepareFolder(dir)
                Issue.record("\(dir) accepted")
            } catch let e as ReportFileError {
                #expect(e.message.contains("\(file) is a file, not a folder"), "\(e)")
                #expect(!e.description.contains("Error Domain"))
            }
        }
    }

    @Test func aGoodFolderIsCreatedAndLeftClean() throws {
        let dir = Self.tmp("nested/a/b")
        try ReportWriter.prepareFolder(dir)
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty)
        try AtomicFile.write("hello", to: "\(dir)/x.txt")
        #expect(try String(contentsOfFile: "\(dir)/x.txt", encoding: .utf8) == "hello")
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["x.txt"])
        // A failed write leaves no temporary file: the target is a folder.
        try FileManager.default.createDirectory(atPath: "\(dir)/taken", withIntermediateDirectories: true)
        #expect(throws: ReportFileError.self) { try AtomicFile.write("x", to: "\(dir)/taken") }
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).sorted() == ["taken", "x.txt"])
    }

    @Test func pathsSplitByTheirBytes() {
        #expect(AtomicFile.split("a/b/c") == ("a/b", "c"))
        #expect(AtomicFile.split("/c") == ("/", "c"))
        #expect(AtomicFile.split("c") == ("", "c"))
        #expect(AtomicFile.split("é") == ("", "é"))
        #expect(AtomicFile.split("a//b//") == ("a", "b"))
        #expect(AtomicFile.split("/") == ("/", ""))
        #expect(throws: ReportFileError.self) { try AtomicFile.write("x", to: "/") }
        #expect(throws: ReportFileError.self) { try AtomicFile.write("x", to: "a\0b") }
    }

    @Test func loadErrorsAreSentencesWithTheJSONPath() throws {
        let dir = Self.tmp("load")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func message(_ text: String?) -> String {
            let path = "\(dir)/report.json"
            try? FileManager.default.removeItem(atPath: path)
            if let text { FileManager.default.createFile(atPath: path, contents: Data(text.utf8)) }
            do {
                _ = try ReportWriter.load(dir)
                return "loaded"
            } catch {
                return "\(error)"
            }
        }
        #expect(message(nil).contains("cannot read report.json"))
        #expect(message("{").hasSuffix("not a syncsim fuzz report: the file is not valid JSON"))
        #expect(message(#"{"format": 1, "tool": "syncsim", "options": []}"#).contains("at options: expected"))
        let missing = message(#"{"format": 1}"#)
        #expect(missing.contains("not a syncsim fuzz report: at ") && missing.contains(": missing"), "\(missing)")
        for m in [message("{"), message(#"{"format": 1, "tool": "syncsim", "options": []}"#)] {
            #expect(!m.contains("DecodingError") && !m.contains("codingPath") && !m.contains("Error Domain"), "\(m)")
        }
        // A folder where the file should be is not read.
        try? FileManager.default.removeItem(atPath: "\(dir)/report.json")
        try FileManager.default.createDirectory(atPath: "\(dir)/report.json", withIntermediateDirectories: true)
        do {
            _ = try ReportWriter.load(dir)
            Issue.record("a folder was read as report.json")
        } catch let e as ReportFileError {
            #expect(e.message.contains("not a regular file"))
        }
    }
}

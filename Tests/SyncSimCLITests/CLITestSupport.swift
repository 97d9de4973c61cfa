import Foundation

/// Runs the built `syncsim` executable in a separate process (tests of the CLI end to end).
enum CLI {
    struct Output {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    /// The executable sits next to the test bundle (`.build/<config>/syncsim`).
    static var executable: URL {
        let here = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
        var dir = here.deletingLastPathComponent()
        for _ in 0..<4 {
            let candidate = dir.appendingPathComponent("syncsim")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        // Fall back to the package's default build folder.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent(".build/debug/syncsim")
    }

    static func run(_ args: [String], environment: [String: String] = [:], cwd: URL? = nil) throws -> Output {
        let p = Process()
        p.executableURL = executable
        p.arguments = args
        var env = ProcessInfo.processInfo.environment
        for (k, v) in environment { env[k] = v }
        p.environment = env
        if let cwd { p.currentDirectoryURL = cwd }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return Output(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    static func json(_ s: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(s.utf8)) as? [String: Any] ?? [:]
    }
}

import Foundation

/// Scenario files named on a command line.
enum ScenarioFiles {
    /// Files as given; folders expanded to their *.json files, recursively, in sorted order.
    static func expand(_ paths: [String]) throws -> [String] {
        var out: [String] = []
        for p in paths {
            var isDir: ObjCBool = false
            guard FileManager.default.fileExists(atPath: p, isDirectory: &isDir) else {
                throw UsageError("\(p): no such file or folder")
            }
            if isDir.boolValue {
                let items = (FileManager.default.enumerator(atPath: p)?.allObjects as? [String]) ?? []
                out += items.filter { $0.hasSuffix(".json") }.sorted().map { (p as NSString).appendingPathComponent($0) }
            } else {
                out.append(p)
            }
        }
        return out
    }
}

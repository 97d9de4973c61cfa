import Foundation

/// Judges a recorded history (a file in `HistoryRecorder`'s format) with the built-in oracles,
/// streaming it: one chunk of the file and at most one line (`HistoryLimits.maxLineBytes`) in
/// memory at a time, plus what the oracles keep. Each line goes through `HistoryLineDecoder`
/// first and, when it is unsure, through the exact reader, which names any problem. `syncsim check` is this plus printing.
public enum HistoryCheck {
    /// What a check found.
    public struct Result: Sendable {
        public var header: HistoryHeader
        /// Violations of the oracles that ran, in time order (at most 20 per invariant are kept).
        public var violations: [Violation]
        /// Violations left out beyond the per-invariant limit.
        public var suppressed: Int
        /// The invariants judged, in catalog order.
        public var judged: [InvariantID]
        /// The invariants not judged, each with why (the history lacks their inputs).
        public var notRun: [(invariant: InvariantID, why: String)]
        /// The invariants the system is held to: violations of these fail the check.
        public var contract: Set<InvariantID>
        /// The conflict rule the history was judged under.
        public var arbitration: Arbitration
        public var lines: Int
        public var intents: Int
        public var commits: Int
        public var told: Int
        /// The history as a story (only with `keepStory`).
        public var story: [TraceLine]
        /// Lines judged by the fast decoder (the others by the exact reader): for benchmarks and tests.
        public var fastLines: Int = 0

        /// Violations of invariants in the contract.
        public var contractViolations: [Violation] { violations.filter { contract.contains($0.invariant) } }
    }

    /// Options of a check.
    public struct Options: Sendable {
        /// Overrides the header's contract (nil: the header's; none there: every invariant).
        public var contract: Set<InvariantID>?
        /// Overrides the header's conflict rule.
        public var arbitration: Arbitration?
        /// Keep the story lines (`Result.story`).
        public var keepStory: Bool
        /// Invariant ids besides the built-ins that a header's contract may name.
        public var knownInvariants: [InvariantID]
        /// Decode lines with `HistoryLineDecoder` where it is sure (false: every line through the
        /// exact reader, which the tests compare it with).
        var fastPath = true

        public init(contract: Set<InvariantID>? = nil, arbitration: Arbitration? = nil, keepStory: Bool = false, knownInvariants: [InvariantID] = []) {
            self.contract = contract
            self.arbitration = arbitration
            self.keepStory = keepStory
            self.knownInvariants = knownInvariants
        }
    }

    /// Checks the history in the file at `path`, reading it in chunks of `chunkBytes`.
    public static func check(path: String, _ options: Options = Options()) throws(HistoryFormatError) -> Result {
        guard let h = FileHandle(forReadingAtPath: path) else {
            throw HistoryFormatError(file: path, line: 0, message: "cannot read the file (does it exist?)")
        }
        defer { try? h.close() }
        var reader = LineSplitter()
        var judge = Judge(file: path, options)
        while true {
            let chunk: Data
            do {
                chunk = try h.read(upToCount: chunkBytes) ?? Data()
            } catch {
                throw HistoryFormatError(file: path, line: reader.lineNumber, message: "cannot read the file (is it a folder?)")
            }
            if chunk.isEmpty { break }
            var failure: HistoryFormatError?
            chunk.withUnsafeBytes { (buf: UnsafeRawBufferPointer) in
                do { try reader.feed(buf.bindMemory(to: UInt8.self)) { line, number in try judge.line(line, number) } }
                catch let e as HistoryFormatError { failure = e }
                catch { failure = HistoryFormatError(file: path, line: reader.lineNumber, message: "\(error)") }
            }
            if var f = failure { f.file = path; throw f }
        }
        do {
            try reader.finish { line, number in try judge.line(line, number) }
        } catch var e as HistoryFormatError { e.file = path; throw e } catch {
            throw HistoryFormatError(file: path, line: reader.lineNumber, message: "\(error)")
        }
        return try judge.result()
    }

    /// How much of a file is read at once: large enough that reading costs nothing per line,
    /// small enough to be nothing beside what the oracles keep.
    static let chunkBytes = 1 << 20

    /// Checks a history given as lines (without newlines): for tests and in-process recorders.
    public static func check(lines: [String], file: String = "", _ options: Options = Options()) throws(HistoryFormatError) -> Result {
        var judge = Judge(file: file, options)
        for (i, l) in lines.enumerated() {
            let bytes = Array(l.utf8)
            guard bytes.count <= HistoryLimits.maxLineBytes else {
                throw HistoryFormatError(file: file, line: i + 1, message: "the line is longer than \(HistoryLimits.maxLineBytes) bytes")
            }
            try bytes.withUnsafeBufferPointer { (b) throws(HistoryFormatError) in try judge.line(b, i + 1) }
        }
        return try judge.result()
    }

    /// Splits a byte stream into lines without ever holding more than one line plus a chunk.
    /// A line inside one chunk is handed over where it lies; only a line that a chunk boundary
    /// cuts is copied (into `buffer`) to be whole.
    struct LineSplitter {
        var buffer: [UInt8] = []
        /// The number of the line being assembled (1-based).
        var lineNumber = 1

        mutating func feed(_ bytes: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
            var start = 0
            var i = 0
            let n = bytes.count
            while i < n {
                if bytes[i] != 0x0A { i += 1; continue }
                if buffer.isEmpty {
                    if i - start > HistoryLimits.maxLineBytes + 1 { throw tooLong() }
                    try emit(UnsafeBufferPointer(rebasing: bytes[start..<i]), body)
                } else {
                    try append(bytes, start..<i)
                    let line = buffer
                    try line.withUnsafeBufferPointer { try emit($0, body) }
                    buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 16)
                }
                i += 1
                start = i
            }
            try append(bytes, start..<n)
        }

        func tooLong() -> HistoryFormatError {
            HistoryFormatError(line: lineNumber, message: "the line is longer than \(HistoryLimits.maxLineBytes) bytes (the limit of a history line); is this a JSON Lines file, one event per line?")
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>, _ r: Range<Int>) throws {
            guard !r.isEmpty else { return }
            if buffer.count + r.count > HistoryLimits.maxLineBytes + 1 { throw tooLong() }
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[r]))
        }

        mutating func emit(_ whole: UnsafeBufferPointer<UInt8>, _ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
            var line = whole
            if let last = line.last, last == 0x0D { line = UnsafeBufferPointer(rebasing: line.dropLast()) }
            if line.count > HistoryLimits.maxLineBytes {
                throw HistoryFormatError(line: lineNumber, message: "the line is longer than \(HistoryLimits.maxLineBytes) bytes (the limit of a history line)")
            }
            try body(line, lineNumber)
            lineNumber += 1
        }

        mutating func finish(_ body: (UnsafeBufferPointer<UInt8>, Int) throws -> Void) throws {
            guard !buffer.isEmpty else { return }
            let line = buffer
            buffer = []
            try line.withUnsafeBufferPointer { try emit($0, body) }
        }
    }

    /// Parses lines and hands them to the replayer; builds the result.
    struct Judge {
        let file: String
        let options: Options
        var replayer: HistoryReplayer?
        /// The fast decoder (nil until the header is read, or when `Options.fastPath` is off).
        var decoder: HistoryLineDecoder?
        /// Lines the fast path judged (the rest took the exact path).
        var fastLines = 0

        init(file: String, _ options: Options) {
            self.file = file
            self.options = options
        }

        func error(_ f: HistoryFields.Failure, _ n: Int) -> HistoryFormatError {
            HistoryFormatError(file: file, line: n, column: f.column, path: f.path, message: f.message)
        }

        mutating func line(_ bytes: UnsafeBufferPointer<UInt8>, _ n: Int) throws(HistoryFormatError) {
            // Blank lines (a trailing newline, spacing between sections) carry nothing.
            if bytes.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return }
            guard n <= HistoryLimits.maxLines else {
                throw HistoryFormatError(file: file, line: n, message: "more than \(HistoryLimits.maxLines) lines; split the history")
            }
            guard replayer != nil else {
                do {
                    let header = try HistoryHeader.parse(Array(bytes), knownInvariants: options.knownInvariants)
                    replayer = HistoryReplayer(header: header, arbitration: options.arbitration, keepStory: options.keepStory)
                    if options.fastPath { decoder = HistoryLineDecoder(schema: header.schema, clients: header.clients) }
                } catch let f as HistoryFields.Failure { throw error(f, n) } catch {
                    throw HistoryFormatError(file: file, line: n, message: "\(error)")
                }
                return
            }
            // Fast path first; on any doubt the exact reader judges the line (and names its problem).
            if let decoder, let ev = try? decoder.decode(bytes), replayer!.apply(ev, line: n) {
                fastLines += 1
                return
            }
            let node: JSONNode
            do { node = try JSONReader.read(Array(bytes)) } catch let e as JSONReadError {
                throw HistoryFormatError(file: file, line: n, column: e.location.column, path: e.path, message: "not valid JSON: \(e.message)")
            } catch {
                throw HistoryFormatError(file: file, line: n, message: "not valid JSON")
            }
            do { try replayer!.consume(node, line: n) } catch let f as HistoryFields.Failure { throw error(f, n) } catch {
                throw HistoryFormatError(file: file, line: n, message: "\(error)")
            }
        }

        mutating func result() throws(HistoryFormatError) -> Result {
            guard var r = replayer else {
                throw HistoryFormatError(file: file, line: 1, message: "the file is empty: a history starts with its header line, {\"syncsim\":\"history\",\"version\":\(HistoryHeader.currentVersion),…}")
            }
            r.finish()
            let arbitrationKnown = r.arbitrationDeclared
            var judged: [InvariantID] = []
            var notRun: [(InvariantID, String)] = []
            for id in InvariantID.builtIns {
                if let why = HistoryCoverage.missing(id, seen: r.seen, header: r.header, arbitrationKnown: arbitrationKnown) {
                    notRun.append((id, why))
                } else {
                    judged.append(id)
                }
            }
            let violations = r.monitor.violations.filter { judged.contains($0.invariant) }.sorted()
            let contract = options.contract ?? r.header.contract.map(Set.init) ?? Set(judged)
            return Result(header: r.header, violations: violations, suppressed: r.monitor.suppressed, judged: judged,
                          notRun: notRun, contract: contract, arbitration: r.state.arbitration, lines: r.seen.lines + 1,
                          intents: r.seen.intents, commits: r.seen.commits, told: r.seen.told, story: r.story ?? [],
                          fastLines: fastLines)
        }
    }
}

/// The explanation as lines a person reads in a terminal (`replay --explain`) or a report:
/// one line per action, then initial data, option faults and the point of no return.
///
/// Why actions are numbered from 1: the story `replay` prints and the report's list number
/// from 1, and a reader matches "#3" across them; the JSON keeps 0-based `index`.
extension Explanation {
    public var lines: [String] {
        var out: [String] = []
        let on = entity.map { " on entity \($0)" } ?? ""
        out.append("explain: \(strategy) violates \(invariant)\(on); \(runs) replays" + (complete ? "" : " (stopped early, by the replay budget or a stop: parts marked ? were not judged)"))
        out.append("  necessary = without it (or changed) the failure disappears; timing = it must happen within the window;")
        out.append("  free = it can go, the failure stays the same way (same invariant\(entity == nil ? "" : ", same entity"))")
        for a in actions {
            out.append("  #\(a.index + 1)".padding(toLength: 6, withPad: " ", startingAt: 0)
                       + "\((a.verdict?.rawValue ?? "?").padding(toLength: 10, withPad: " ", startingAt: 0)) \(a.action)")
            let d = details(verdict: a.verdict, free: a.freeParameters, fixed: a.fixedParameters, window: a.window)
            if !d.isEmpty { out.append("        " + d) }
        }
        for i in initial {
            let d = details(verdict: i.verdict, free: i.freeParameters, fixed: i.fixedParameters, window: nil)
            out.append("  initial entity \(i.entity): \(i.verdict?.rawValue ?? "?")" + (d.isEmpty ? "" : "; " + d))
        }
        for o in options {
            out.append("  option \(o.option) = \(o.value): \(o.verdict.map { $0 == .free ? "free (turned off, it still fails)" : "necessary (turned off, the failure disappears)" } ?? "?")")
        }
        out.append(pointOfNoReturnSentence)
        return out
    }

    /// One sentence on the point of no return.
    public var pointOfNoReturnSentence: String {
        guard let p = pointOfNoReturn else {
            return complete ? "point of no return: none: random continuations can still avert the failure after the last action"
                            : "point of no return: not found within the budget"
        }
        if p.afterActions == 0 { return "point of no return: before any action: the initial data and options alone make it certain (\(p.suffixes) continuations tried)" }
        return "point of no return: after action #\(p.afterActions) (t=\(p.at ?? 0)ms): every one of \(p.suffixes) continuations tried from there fails the same way"
    }

    private func details(verdict: Verdict?, free: [String], fixed: [String], window: Window?) -> String {
        var parts: [String] = []
        if verdict == .free {
            parts.append("can go" + (free.isEmpty ? "" : " (and so any \(free.joined(separator: ", ")))"))
            return parts.joined(separator: "; ")
        }
        if let w = window { parts.append("fails for t in \(w.text)") }
        if !free.isEmpty { parts.append("free: \(free.joined(separator: ", "))") }
        if !fixed.isEmpty { parts.append("fixed: \(fixed.joined(separator: ", "))") }
        return parts.joined(separator: "; ")
    }
}

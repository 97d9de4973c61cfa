extension FuzzDriver {
    /// Checks the user invariants `strategies` are judged by (`AnyStrategy.invariants`) before
    /// anything runs, so that a bad definition is one clear error up front rather than a run
    /// that throws half-way, a report that is quietly wrong, or a claim nobody checks.
    ///
    /// - A strategy's own invariants have distinct ids, none a built-in's (its runs would throw).
    /// - One id means one invariant across strategies: the same summary, documentation and
    ///   observation needs (a report shows one column, with one summary, per id).
    /// - No user id equals another id, built-in or user, ignoring case: ids become scenario file
    ///   names (one file on a case-insensitive file system) and readers would confuse them.
    /// - Every invariant a strategy claims is a built-in or one it is judged by. A claim with no
    ///   oracle can never be violated, so the report would call it met: a false green.
    /// - No two (strategy, invariant) pairs name the same scenario file
    ///   (`<strategy>-<invariant>-seed<N>.json`, ignoring case): one shrunk failure would
    ///   overwrite the other's file.
    ///
    /// `FuzzDriver.init` calls this; the CLI calls it at startup (exit 2 on an error). Errors
    /// depend only on the order of `strategies` and their invariants' ids (dictionaries here are
    /// only looked up).
    public static func checkInvariants(of strategies: [AnyStrategy]) throws(FuzzConfigurationError) {
        var first: [InvariantID: (invariant: CustomInvariant, strategy: String)] = [:]
        var lowered: [String: String] = [:]
        for b in InvariantID.builtIns { lowered[b.rawValue.lowercased()] = b.rawValue }
        for s in strategies {
            let mine: [CustomInvariant]
            do {
                mine = try InvariantCatalog.validated(s.invariants)
            } catch {
                throw .invalidInvariants(strategy: s.name, error)
            }
            for inv in mine {
                if inv.id.isBuiltIn { throw .invalidInvariants(strategy: s.name, .shadowsBuiltIn(inv.id.rawValue)) }
                if let (other, owner) = first[inv.id] {
                    if other.summary != inv.summary || other.documentation != inv.documentation
                        || other.needsObservations != inv.needsObservations {
                        throw .invariantsDiffer(inv.id, firstStrategy: owner, secondStrategy: s.name)
                    }
                    continue
                }
                if let clash = lowered[inv.id.rawValue.lowercased()] {
                    throw .invariantIDsEqualIgnoringCase(clash, inv.id.rawValue)
                }
                lowered[inv.id.rawValue.lowercased()] = inv.id.rawValue
                first[inv.id] = (inv, s.name)
            }
            let judged = mine.map(\.id)
            for claim in s.info.contract.sorted() where !claim.isBuiltIn && !judged.contains(claim) {
                let known = (InvariantID.builtIns + judged).map(\.rawValue)
                throw .unjudgedClaim(strategy: s.name, invariant: claim,
                                     suggestion: NameSuggestion.closest(to: claim.rawValue, in: known, limit: 1).first)
            }
        }
        var files: [String: String] = [:]
        for s in strategies {
            for id in InvariantID.builtIns + s.invariants.map(\.id).sorted() {
                let pair = "\(s.name)/\(id.rawValue)"
                let file = "\(s.name)-\(id.rawValue)".lowercased()
                if let other = files[file], other != pair { throw .scenarioFilesCollide(other, pair) }
                files[file] = pair
            }
        }
    }
}

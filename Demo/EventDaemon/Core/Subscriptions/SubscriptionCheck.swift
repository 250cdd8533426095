@_spi(StrataDaemon) import Strata

/// The checks a `subscribe` line passes before anything runs, in one place: the query's static
/// cost (``QueryCost``), the RQL, the sort key path and the key paths, each refused with an
/// ``IngestRejection`` instead of reaching an API that traps on a programmer's mistake. The
/// request fuzzer runs them on every `subscribe` it makes up.
package enum SubscriptionCheck {
    /// The results a subscription of `query`, sorted by `sort`, observes.
    ///
    /// - Throws: `bad_query` naming what is wrong with the query or the sort key path.
    static func results(in realm: Realm, query: String, sort: String?,
                        ascending: Bool) throws(IngestRejection) -> Results<StoredEvent> {
        do {
            var results = try realm.objects(StoredEvent.self).filter(validating: query)
            if let sort {
                // The key path goes into RQL text: it must be one key path, not more query.
                guard isPlainKeyPath(sort) else {
                    throw IngestRejection.badQuery("the sort key path '\(sort)' is not one key path: it must not be "
                                                   + "empty or hold spaces, commas or parentheses")
                }
                results = try results.filter(validating: "TRUEPREDICATE SORT(\(sort) \(ascending ? "ASC" : "DESC"))")
            }
            return results
        } catch let rejection as IngestRejection {
            throw rejection
        } catch {
            throw .badQuery("\(error)")
        }
    }

    /// Runs every check of a `subscribe` line and returns the results it would observe, without
    /// registering anything (for the request fuzzer).
    ///
    /// - Throws: what ``Subscription`` would refuse the line with.
    package static func check(in realm: Realm, query: String, sort: String?, ascending: Bool, keyPaths: [String]?,
                              limits: DaemonLimits) throws(IngestRejection) -> Results<StoredEvent> {
        try QueryCost.check(query: query, sort: sort, limits: limits)
        let results = try results(in: realm, query: query, sort: sort, ascending: ascending)
        do {
            try results.validateObserved(keyPaths)
        } catch {
            throw .badQuery("\(error)")
        }
        return results
    }

    /// Whether `keyPath` can only be read as one key path inside `SORT(… ASC)`: not empty, and
    /// no whitespace, comma or parenthesis, which would end it and go on with more of the query.
    static func isPlainKeyPath(_ keyPath: String) -> Bool {
        !keyPath.isEmpty && !keyPath.unicodeScalars.contains {
            $0.properties.isWhitespace || $0 == "," || $0 == "(" || $0 == ")"
        }
    }
}

/// One way a snapshot's tables disagree with themselves, as
/// ``Snapshot/consistencyProblems(limit:)`` finds it: which table and object, and what.
package struct ConsistencyProblem: Sendable, Hashable, CustomStringConvertible {
    /// The class (table) the problem is in.
    package var table: String
    /// The object, when the problem is one object's.
    package var object: ObjectKey?
    /// What is wrong.
    package var problem: String

    package var description: String {
        "\(table)" + (object.map { " object \($0.rawValue)" } ?? "") + ": " + problem
    }
}

extension Snapshot {
    /// Checks what the pages' checksums cannot: that the indexes and backlinks agree with the
    /// rows. Every row's primary key finds that row in the primary-key index, and no two rows
    /// share one; every indexed value finds its row through the index; every link points at an
    /// object that exists and is recorded as a backlink there, as many times as it links; every
    /// backlink is such a link; every embedded object has exactly one owner.
    ///
    /// Reads the whole snapshot (a store larger than its cache is read through the cache) and
    /// stops after `limit` problems.
    ///
    /// - Complexity: O(n log n) in the number of rows plus links.
    package func consistencyProblems(limit: Int = 100) -> [ConsistencyProblem] {
        var problems: [ConsistencyProblem] = []
        func report(_ table: Table, _ object: ObjectKey?, _ problem: String) {
            if problems.count < limit { problems.append(ConsistencyProblem(table: table.schema.name, object: object,
                                                                           problem: problem)) }
        }
        // The links each object receives, counted from the rows: what its backlinks must say.
        var expected: [ObjectLink: [Backlink: Int]] = [:]
        for table in allTables {
            let schema = table.schema
            let indexed = schema.columns.indices.filter {
                schema.columns[$0].isIndexed && schema.columns[$0].collection == .single && $0 != schema.primaryKeyIndex
            }
            table.forEachObject { key, row in
                guard problems.count < limit else { return }
                if let column = schema.primaryKeyIndex {
                    let found = table.object(forPrimaryKey: row[column])
                    if found != key {
                        report(table, key, "its primary key \(row[column]) finds "
                               + (found.map { "object \($0.rawValue)" } ?? "nothing") + " in the primary-key index")
                    }
                }
                for column in indexed where !table.objects(where: column, equals: row[column]).contains(key) {
                    report(table, key, "the index of '\(schema.columns[column].name)' does not find it by its value "
                           + "\(row[column])")
                }
                for column in schema.linkColumns {
                    row[column].forEachLink { link in
                        expected[link, default: [:]][Backlink(table: table.key, column: column, object: key), default: 0] += 1
                    }
                }
            }
        }
        for (link, origins) in expected where problems.count < limit {
            guard let target = table(link.table), target.contains(link.key) else {
                let origin = origins.keys.sorted { $0.object < $1.object }[0]
                if let table = table(origin.table) {
                    report(table, origin.object, "'\(table.schema.columns[origin.column].name)' links to an object "
                           + "that does not exist (table \(link.table), object \(link.key.rawValue))")
                }
                continue
            }
            var recorded: [Backlink: Int] = [:]
            for backlink in target.backlinks(to: link.key) { recorded[backlink, default: 0] += 1 }
            if recorded != origins {
                report(target, link.key, "its backlinks (\(recorded.values.reduce(0, +))) do not match the links to it "
                       + "(\(origins.values.reduce(0, +)))")
            }
        }
        for target in allTables where problems.count < limit {
            target.forEachObject { key, _ in
                guard problems.count < limit else { return }
                let backlinks = target.backlinks(to: key)
                if target.schema.isEmbedded, backlinks.count != 1 {
                    report(target, key, "an embedded object has \(backlinks.count) owners (1 expected)")
                }
                if !backlinks.isEmpty, expected[ObjectLink(table: target.key, key: key)] == nil {
                    report(target, key, "it has \(backlinks.count) backlinks but no object links to it")
                }
            }
        }
        return problems
    }
}

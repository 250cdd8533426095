import Foundation
import MallocCounter
import Strata

/// Heap allocations on the hot paths (Strata only), checked against `Thresholds/allocations.json`
/// (about 20% above the figures measured when they were set): a figure above its threshold fails
/// the run (`BENCHMARK FAILED`), so a regression shows. Lower the threshold when a change lowers
/// the figure.
/// Counted by the MallocCounter target, which interposes the process's allocator.
///
/// - property read: per read of a managed Int and of a String property (cached row);
/// - property increment: per `+= 1` of a managed Int property inside one write transaction (a
///   read, then a set, of the same object again and again: the set changes the row in place
///   rather than copying the row the read cached);
/// - commit: per single-object write transaction (`.normal`) setting one property;
/// - notification delivery: per 1-object change delivered to a sorted, filtered `Results`
///   observer on a loop thread, over the commit's own allocations.
enum Allocations {
    static func run(_ table: Table) throws {
        guard strata_allocation_counting() != 0 else {
            throw SanityFailure(description: "allocations cannot be counted in a sanitizer build: build strata-bench without --sanitize")
        }
        let store = try StrataStore(.normal, seededRows: 10_000)
        let figures = [
            ("property read (Int + String)", "property_read", try propertyRead(store)),
            ("property increment inside a write", "property_increment", try propertyIncrement(store)),
            ("single-object commit", "commit", try commit(store)),
            ("notification delivery, 1-object change", "notification", try notification(store)),
        ]
        let thresholds = try Self.thresholds()
        var failures: [String] = []
        for (label, key, value) in figures {
            let limit = thresholds[key] ?? .infinity
            let verdict = value <= limit ? "ok" : "ABOVE"
            if value > limit { failures.append("\(label): \(value) > \(limit)") }
            table.add("allocations per \(label) (threshold \(Table.format(limit)))",
                      strata: "\(Table.format(value)) \(verdict)", grdb: "n/a")
        }
        if !failures.isEmpty {
            throw SanityFailure(description: "allocation thresholds exceeded: " + failures.joined(separator: "; "))
        }
    }

    private static func allocations(_ body: () throws -> Void) rethrows -> Int {
        let before = strata_allocation_count()
        try body()
        return Int(strata_allocation_count() - before)
    }

    static func propertyRead(_ store: StrataStore) throws -> Double {
        let person = store.realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(500))!
        var checksum = 0
        _ = person.age  // fill the row cache
        let reads = 100_000
        let count = allocations {
            for _ in 0..<(reads / 2) {
                checksum &+= person.age
                checksum &+= person.name.utf8.count
            }
        }
        try expect(checksum > 0, true, "allocation read checksum")
        return Double(count) / Double(reads)
    }

    static func propertyIncrement(_ store: StrataStore) throws -> Double {
        let realm = store.realm
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(502))!
        let start = person.age
        let increments = 10_000
        realm.beginWrite()
        let count = allocations {
            for _ in 0..<increments { person.age += 1 }
        }
        try realm.commitWrite()
        try expect(person.age, start + increments, "allocation increments read back")
        return Double(count) / Double(increments)
    }

    static func commit(_ store: StrataStore) throws -> Double {
        let realm = store.realm
        let person = realm.object(ofType: BenchPerson.self, forPrimaryKey: Int64(501))!
        let commits = 1_000
        let count = try allocations {
            for i in 0..<commits { try realm.write { person.score = Double(i) } }
        }
        return Double(count) / Double(commits)
    }

    static func notification(_ store: StrataStore) throws -> Double {
        let changedID = NotificationScaling.changedID
        let awaited = AwaitedValue("allocations")
        awaited.expect(-1)
        let observer = try StrataObserver(name: "allocations", configuration: store.configuration) { realm in
            realm.objects(BenchPerson.self).where { $0.age > 50 }.sorted(byKeyPath: "score", ascending: false)
                .observe { change in
                    switch change {
                    case .initial: awaited.deliver(-1, at: now())
                    case .update(let results, _, _, _): awaited.deliver(Int(results.first?.score ?? 0), at: now())
                    case .error(let error): awaited.fail(error)
                    }
                }
        }
        defer { observer.stop() }
        _ = try awaited.wait()
        let realm = store.realm
        let rounds = 200
        // Commit plus delivery, minus a commit's own allocations (measured right after).
        let total = try allocations {
            for k in 1...rounds {
                let marker = 2_000_000 + k
                awaited.expect(marker)
                try realm.write { realm.object(ofType: BenchPerson.self, forPrimaryKey: changedID)!.score = Double(marker) }
                _ = try awaited.wait()
            }
        }
        let commitOnly = try commit(store)
        return max(0, Double(total) / Double(rounds) - commitOnly)
    }

    /// The checked-in thresholds: `Benchmarks/Thresholds/allocations.json`.
    static func thresholds() throws -> [String: Double] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Thresholds/allocations.json")
        let data = try Data(contentsOf: url)
        return try JSONDecoder().decode([String: Double].self, from: data)
    }
}

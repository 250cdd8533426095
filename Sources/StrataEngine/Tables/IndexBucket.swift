import HashTreeCollections

/// The objects that share one value in a secondary index: one key inline, more in a set.
enum IndexBucket: Sendable, Hashable {
    case one(ObjectKey)
    case many(TreeSet<ObjectKey>)

    func inserting(_ key: ObjectKey) -> IndexBucket {
        switch self {
        case .one(let existing):
            return existing == key ? self : .many([existing, key])
        case .many(var keys):
            keys.insert(key)
            return .many(keys)
        }
    }

    /// The bucket without `key`, or nil when it becomes empty.
    func removing(_ key: ObjectKey) -> IndexBucket? {
        switch self {
        case .one(let existing): return existing == key ? nil : self
        case .many(var keys):
            keys.remove(key)
            if keys.count == 1, let last = keys.first { return .one(last) }
            return keys.isEmpty ? nil : .many(keys)
        }
    }

    /// The keys, ascending.
    var sortedKeys: [ObjectKey] {
        switch self {
        case .one(let key): [key]
        case .many(let keys): keys.sorted()
        }
    }
}

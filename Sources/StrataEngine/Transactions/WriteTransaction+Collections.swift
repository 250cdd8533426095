import StrataSupport

extension WriteTransaction {
    // MARK: - Lists

    /// Inserts `value` at `index` of the list at `path`.
    package func listInsert(_ value: Value, at index: Int, in path: PropertyPath) throws {
        let elements = try list(at: path)
        guard (0...elements.count).contains(index) else { throw outOfBounds(index, elements.count, path) }
        guard elements.count < maximumCollectionIndex else {
            throw invalid("the list at \(path) holds the most elements a list can hold (\(maximumCollectionIndex))")
        }
        let column = try resolve(path).1
        try validateElement(value, for: column)
        try requireUnowned(value, for: column)
        try record(.list(path, .insert(index: index, value: value)))
    }

    /// Appends `value` to the list at `path`.
    package func listAppend(_ value: Value, in path: PropertyPath) throws {
        try listInsert(value, at: try list(at: path).count, in: path)
    }

    /// Removes the element at `index` of the list at `path` (erasing it if it is an embedded object).
    package func listErase(at index: Int, in path: PropertyPath) throws {
        let elements = try list(at: path)
        guard elements.indices.contains(index) else { throw outOfBounds(index, elements.count, path) }
        try record(.list(path, .erase(index: index)))
        try eraseOwnedObjects(in: elements[index], of: try resolve(path).1)
    }

    /// Replaces the element at `index` of the list at `path`.
    package func listSet(_ value: Value, at index: Int, in path: PropertyPath) throws {
        let elements = try list(at: path)
        guard elements.indices.contains(index) else { throw outOfBounds(index, elements.count, path) }
        let column = try resolve(path).1
        try validateElement(value, for: column)
        if value != elements[index] { try requireUnowned(value, for: column) }
        try record(.list(path, .set(index: index, value: value)))
        if value != elements[index] { try eraseOwnedObjects(in: elements[index], of: column, keeping: value) }
    }

    /// Moves the element at `from` so that it ends up at `to`.
    package func listMove(from: Int, to: Int, in path: PropertyPath) throws {
        let elements = try list(at: path)
        guard elements.indices.contains(from) else { throw outOfBounds(from, elements.count, path) }
        guard elements.indices.contains(to) else { throw outOfBounds(to, elements.count, path) }
        guard from != to else { return }
        try record(.list(path, .move(from: from, to: to)))
    }

    /// Removes every element of the list at `path`.
    package func listClear(in path: PropertyPath) throws {
        let elements = try list(at: path)
        guard !elements.isEmpty else { return }
        try record(.list(path, .clear))
        try eraseOwnedObjects(in: .list(elements), of: try resolve(path).1)
    }

    // MARK: - Sets

    /// Inserts `value` into the set at `path`.
    ///
    /// - Returns: false when it was already there (nothing is recorded then).
    @discardableResult
    package func setInsert(_ value: Value, in path: PropertyPath) throws -> Bool {
        let elements = try set(at: path)
        try validateElement(value, for: try resolve(path).1)
        switch value {
        case .list, .set, .dictionary: throw invalid("a set cannot hold a collection (\(path))")
        default: break
        }
        guard !elements.setPosition(of: value).found else { return false }
        try record(.set(path, .insert(value)))
        return true
    }

    /// Removes `value` from the set at `path`.
    ///
    /// - Returns: false when it was not there.
    @discardableResult
    package func setErase(_ value: Value, in path: PropertyPath) throws -> Bool {
        guard try set(at: path).setPosition(of: value).found else { return false }
        try record(.set(path, .erase(value)))
        return true
    }

    /// Removes every element of the set at `path`.
    package func setClear(in path: PropertyPath) throws {
        guard !(try set(at: path)).isEmpty else { return }
        try record(.set(path, .clear))
    }

    // MARK: - Dictionaries

    /// Sets the value for `key` in the dictionary at `path`.
    package func dictionarySet(_ value: Value, forKey key: String, in path: PropertyPath) throws {
        let map = try dictionary(at: path)
        let column = try resolve(path).1
        try validateElement(value, for: column)
        let old = map[key] ?? .null
        if value != old { try requireUnowned(value, for: column) }
        try record(.dictionary(path, .set(key: key, value: value)))
        if value != old { try eraseOwnedObjects(in: old, of: column, keeping: value) }
    }

    /// Removes `key` from the dictionary at `path`.
    ///
    /// - Returns: false when the key was not there.
    @discardableResult
    package func dictionaryErase(key: String, in path: PropertyPath) throws -> Bool {
        guard let old = try dictionary(at: path)[key] else { return false }
        try record(.dictionary(path, .erase(key: key)))
        try eraseOwnedObjects(in: old, of: try resolve(path).1)
        return true
    }

    /// Removes every entry of the dictionary at `path`.
    package func dictionaryClear(in path: PropertyPath) throws {
        let map = try dictionary(at: path)
        guard !map.isEmpty else { return }
        try record(.dictionary(path, .clear))
        try eraseOwnedObjects(in: .list(map.values), of: try resolve(path).1)
    }

    // MARK: - Access

    private func list(at path: PropertyPath) throws -> [Value] {
        guard case .list(let elements) = try resolve(path).2 else { throw invalid("\(path) is not a list") }
        return elements
    }

    private func set(at path: PropertyPath) throws -> [Value] {
        guard case .set(let elements) = try resolve(path).2 else { throw invalid("\(path) is not a set") }
        return elements
    }

    private func dictionary(at path: PropertyPath) throws -> ValueMap {
        guard case .dictionary(let map) = try resolve(path).2 else { throw invalid("\(path) is not a dictionary") }
        return map
    }

    private func outOfBounds(_ index: Int, _ count: Int, _ path: PropertyPath) -> StrataError {
        invalid("index \(index) is out of bounds (count \(count)) for the list at \(path)")
    }
}

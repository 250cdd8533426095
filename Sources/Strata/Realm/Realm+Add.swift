import Foundation
import StrataEngine

extension Realm {
    /// What `add` and `create` do when an object with the same primary key exists, as in Realm
    /// Swift.
    public enum UpdatePolicy: Int, Sendable {
        /// Fail with `primaryKeyExists` (the default).
        case error = 1
        /// Write only the properties whose values differ, and report only those as changed.
        case modified = 3
        /// Write every property and report every one as changed.
        case all = 2
    }

    /// Adds an unmanaged object, and every unmanaged object it links to, to the Realm; the
    /// object itself becomes managed. Re-adding a managed object of this Realm does nothing.
    ///
    /// Must be called inside a write transaction (traps otherwise). A duplicate primary key with
    /// `.error`, an object managed by another Realm, or an invalidated object cancels the write,
    /// which then throws the ``Realm/Error`` (Realm Swift's `add` does not throw, and neither
    /// does this). `update` must be `.error` for a class without a primary key: anything else
    /// traps with Realm's message ("'Dog' does not have a primary key and can not be updated"),
    /// as Realm Swift raises there.
    public func add(_ object: Object, update: UpdatePolicy = .error) {
        if update != .error {
            let info = ClassInfo.known(type(of: object))
            precondition(info.primaryKey != nil,
                         "'\(info.className)' does not have a primary key and can not be updated")
        }
        var context = requireWrite(modifying: "add, remove, or create")
        context = _WriteContext(realm: self, update: update)
        _ = link(to: object, context)
    }

    /// Adds every object of a sequence; see ``add(_:update:)``.
    public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) where S.Iterator.Element: Object {
        for object in objects {
            guard writeIsLive else { return }
            add(object, update: update)
        }
    }

    /// Creates a managed object from a dictionary of property values, an array of values in
    /// property order, or another object, and returns it.
    ///
    /// A dictionary is read by property name (keys that are not properties are ignored); values
    /// may come straight from `JSONSerialization`. With `.modified` or `.all` and an existing
    /// primary key, only the properties given are written. Must be called inside a write
    /// transaction (traps otherwise). A value of the wrong type cancels the write, which then
    /// throws ``Realm/Error`` with code `invalidInput` and Realm's message; the returned object
    /// is then unmanaged.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) -> T {
        _ = requireWrite(modifying: "add, remove, or create")
        // `type`, not `T`: a subclass passed as `Object.self`'s dynamic type is made as itself.
        let object = type.init()
        let recorder = GivenKeys()
        if let source = value as? ObjectBase, source.handle == nil { recorder.register(object, asCopyOf: source) }
        let filled = GivenKeys.$current.withValue(recorder) { () -> Result<Set<String>, Realm.Error> in
            Result { () throws(Realm.Error) in try ObjectValueFiller.fill(object, from: value) }
        }
        let given: Set<String>
        switch filled {
        case .success(let names): given = names
        case .failure(let error):
            recordWriteFailure(error)
            return object
        }
        if update != .error, ClassInfo.known(type).primaryKey == nil {
            recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                           "'\(type.className())' does not have a primary key and can not be updated"))
            return object
        }
        _ = link(to: object, _WriteContext(realm: self, update: update, givenKeys: recorder),
                 onlyProperties: update == .error ? nil : given)
        return object
    }

    // MARK: - Internals

    /// The link to `object` in this Realm, adding it (and what it links to) first when it is
    /// unmanaged. Nil (with the failure recorded) when it cannot be added.
    func link(to object: ObjectBase, _ context: _WriteContext, onlyProperties: Set<String>? = nil) -> ObjectLink? {
        guard let transaction else { return nil }
        if let handle = object.handle {
            guard handle.realm.state === state else {
                // `create` copies values, and an object of another Realm among them is copied
                // too, as Realm does (`add` refuses it).
                if context.givenKeys != nil, handle.exists {
                    let copy = type(of: object).init()
                    if (try? ObjectValueFiller.fill(copy, from: object)) != nil {
                        return link(to: copy, context)
                    }
                }
                recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                               "Object is already managed by another Realm. Use create instead to copy "
                                                   + "it into this Realm."))
                return nil
            }
            guard handle.exists else {
                recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                               "Adding a deleted or invalidated object to a Realm is not permitted"))
                return nil
            }
            return ObjectLink(table: handle.table.key, key: handle.key)
        }
        let info: ClassInfo
        let table: TableInfo
        do {
            info = try ClassInfo.of(type(of: object))
            table = try ensureTable(for: info, in: transaction)
        } catch {
            recordWriteFailure(Realm.Error.wrap(error))
            return nil
        }

        // Plain values go straight from the object's fields to stored values; the primary key
        // first, to find an existing object.
        let properties = info.insertedProperties
        func storedValue(_ index: Int) -> StrataEngine.Value {
            let property = properties[index]
            return property.accessor.unmanagedStoredValue(at: object.address(of: property), context)
        }
        /// The unmanaged values as the update path and object-valued properties take them.
        func unmanagedValues() -> [Any?] {
            info.properties.map { property -> Any? in
                property.isLinkingObjects ? nil : property.accessor.unmanagedValue(at: object.address(of: property))
            }
        }
        var primaryKeyValue: StrataEngine.Value?
        if let primaryKey = info.primaryKey {
            let keyValue = storedValue(primaryKey)
            primaryKeyValue = keyValue
            if let existing = transaction.snapshot.table(table.key)!.object(forPrimaryKey: keyValue) {
                guard context.update != .error else {
                    recordWriteFailure(Realm.Error(
                        Realm.Error.primaryKeyExists,
                        "Attempting to create an object of type '\(info.className)' with an existing primary key "
                            + "value '\(describe(keyValue))'."))
                    return nil
                }
                let unmanaged = unmanagedValues()
                object.bind(to: ObjectHandle(realm: self, table: table, key: existing))
                update(existing, in: table, with: unmanaged, context,
                       only: onlyProperties ?? context.givenKeys?.names(for: object))
                adoptUnmanagedState(of: object, in: table, key: existing)
                return ObjectLink(table: table.key, key: existing)
            }
        }

        // Insert with plain values now and object-valued properties (which may link back here)
        // once the object has a key; those are read before the object is bound.
        var values = table.emptyRow
        var deferred: [(index: Int, value: Any)] = []
        for (index, property) in properties.enumerated() {
            switch property.kind {
            case .linkingObjects:
                continue
            case .deferred:
                deferred.append((index, property.accessor.unmanagedValue(at: object.address(of: property))))
            case .plain:
                if index == info.primaryKey, let primaryKeyValue {
                    values[table.columns[index]] = primaryKeyValue
                } else {
                    values[table.columns[index]] = property.accessor.unmanagedStoredValue(at: object.address(of: property),
                                                                                          context)
                }
            }
        }
        guard writeIsLive else { return nil }
        let key: ObjectKey
        do {
            // The primary key was looked up above, in this snapshot, and is free.
            key = try transaction.insertObject(into: table.key, values: values, primaryKeyIsFree: true)
        } catch {
            recordWriteFailure(Realm.Error.wrap(error))
            return nil
        }
        object.bind(to: ObjectHandle(realm: self, table: table, key: key))
        for (index, value) in deferred {
            let stored = properties[index].accessor.stored(value, context)
            guard let live = self.transaction else { return nil }
            do {
                try live.setValue(stored, at: PropertyPath(table: table.key, object: key, column: table.columns[index]))
            } catch {
                recordWriteFailure(Realm.Error.wrap(error))
                return nil
            }
        }
        adoptUnmanagedState(of: object, in: table, key: key)
        return ObjectLink(table: table.key, key: key)
    }

    /// Writes the given unmanaged values over an existing object (the update path of `add` and
    /// `create`).
    private func update(_ key: ObjectKey, in table: TableInfo, with values: [Any?], _ context: _WriteContext,
                        only: Set<String>?) {
        let info = table.classInfo
        for (index, property) in info.properties.enumerated()
        where !property.isLinkingObjects && index != info.primaryKey && only.map({ $0.contains(property.name) }) ?? true {
            guard let transaction else { return }
            let path = PropertyPath(table: table.key, object: key, column: table.columns[index])
            if updateEmbeddedInPlace(values[index]!, at: path, context)
                || updateEmbeddedListInPlace(values[index]!, at: path, context) { continue }
            let stored = property.accessor.stored(values[index]!, context)
            if context.update == .modified, transaction.snapshot.table(table.key)?.value(of: key, column: path.column) == stored {
                continue
            }
            do {
                try transaction.setValue(stored, at: path)
            } catch {
                recordWriteFailure(Realm.Error.wrap(error))
                return
            }
        }
    }

    /// Updates the embedded object already at `path` from the unmanaged one `value` holds, as
    /// Realm updates embedded objects in place: `create(_:value:update:)` writes the keys its
    /// dictionary gave, `add(_:update: .modified)` every property (`.all` replaces the object
    /// instead, as Realm does). The unmanaged object becomes the managed one. False (nothing
    /// done) when there is no embedded object at `path` or `value` is not an unmanaged one.
    private func updateEmbeddedInPlace(_ value: Any, at path: PropertyPath, _ context: _WriteContext) -> Bool {
        guard let embedded = KeyValueCoding.flattened(value) as? EmbeddedObject, embedded.handle == nil,
              case .inPlace(let properties) = embeddedUpdate(of: embedded, context), let transaction,
              let current = transaction.snapshot.table(path.table)?.value(of: path.object, column: path.column),
              case .link(let existing) = current else { return false }
        return update(embedded, inPlaceOf: existing, only: properties, context)
    }

    /// Updates the embedded objects of the list at `path` from the unmanaged list `value`, as
    /// Realm does for `add(_:update: .modified)`: the first elements in place, the rest
    /// appended, the extra old ones removed. False (nothing done) when `value` is not an
    /// unmanaged list of embedded objects or the update is not one made in place.
    private func updateEmbeddedListInPlace(_ value: Any, at path: PropertyPath, _ context: _WriteContext) -> Bool {
        guard context.givenKeys == nil, context.update == .modified,
              let objects = (value as? any UnmanagedEmbeddedList)?.unmanagedEmbeddedObjects,
              let transaction,
              case .list(let existing)? = transaction.snapshot.table(path.table)?.value(of: path.object,
                                                                                       column: path.column)
        else { return false }
        do {
            for (index, object) in objects.enumerated() {
                guard writeIsLive, let live = self.transaction else { return true }
                if index < existing.count, case .link(let link) = existing[index], object.handle == nil {
                    _ = update(object, inPlaceOf: link, only: nil, context)
                } else {
                    let stored = object._rlmToStored(context)
                    guard writeIsLive else { return true }
                    try live.listAppend(stored, in: path)
                }
            }
            for index in (objects.count..<max(objects.count, existing.count)).reversed() {
                guard let live = self.transaction else { return true }
                try live.listErase(at: index, in: path)
            }
        } catch {
            recordWriteFailure(Realm.Error.wrap(error))
        }
        return true
    }

    /// What an update does to an embedded object it finds where a new one is given.
    private enum EmbeddedUpdate {
        /// The old object is erased and the new one added (`add(_:update: .all)`).
        case replace
        /// The old object is kept and the properties named (all, when nil) written over it.
        case inPlace(properties: Set<String>?)
    }

    private func embeddedUpdate(of embedded: EmbeddedObject, _ context: _WriteContext) -> EmbeddedUpdate {
        if let givenKeys = context.givenKeys {
            guard let names = givenKeys.names(for: embedded) else { return .replace }
            return .inPlace(properties: names)
        }
        return context.update == .modified ? .inPlace(properties: nil) : .replace
    }

    /// Binds the unmanaged `embedded` to the existing embedded object `link` and writes its
    /// properties (`only` those named, when given) over it.
    private func update(_ embedded: EmbeddedObject, inPlaceOf link: ObjectLink, only: Set<String>?,
                        _ context: _WriteContext) -> Bool {
        guard let info = try? ClassInfo.of(type(of: embedded)),
              let table = tableInfo(forKey: link.table, expecting: type(of: embedded)) else { return false }
        let values = info.properties.map { property -> Any? in
            property.isLinkingObjects ? nil : property.accessor.unmanagedValue(at: embedded.address(of: property))
        }
        embedded.bind(to: ObjectHandle(realm: self, table: table, key: link.key))
        update(link.key, in: table, with: values, context, only: only)
        adoptUnmanagedState(of: embedded, in: table, key: link.key)
        return true
    }

    /// The table of `info`, creating it (and the tables of classes it links to) in the current
    /// write when the file has none yet.
    func ensureTable(for info: ClassInfo, in transaction: WriteTransaction) throws -> TableInfo {
        if let known = tableInfo(for: info) { return known }
        try SchemaSetup.createTables(for: [info], in: transaction)
        let table = transaction.snapshot.table(named: info.className)!
        let tableInfo = TableInfo(key: table.key, classInfo: info, schema: table.schema)
        tableInfos[ObjectIdentifier(info.type)] = tableInfo
        return tableInfo
    }

    private func describe(_ value: StrataEngine.Value) -> String {
        switch value {
        case .int(let number): return "\(number)"
        case .string(let string): return string
        case .uuid(let bits): return UUID(bits).uuidString
        case .null: return "null"
        default: return "\(value)"
        }
    }
}

extension PersistedAccessor {
    /// Converts an unmanaged value read from this property for storage.
    static func stored(_ value: Any, _ context: _WriteContext) -> StrataEngine.Value {
        storedValue(value, as: valueType, context)
    }

    private static func storedValue<V: _Persistable>(_ value: Any, as type: V.Type, _ context: _WriteContext) -> StrataEngine.Value {
        (value as! V)._rlmToStored(context)
    }
}

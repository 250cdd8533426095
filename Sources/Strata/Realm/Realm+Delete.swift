import StrataEngine

extension Realm {
    /// Deletes an object. Links to it are removed (set to nil, removed from lists and sets,
    /// set to nil in maps) and the embedded objects it owns are deleted with it; every accessor
    /// of it becomes invalidated.
    ///
    /// Must be called inside a write transaction (traps otherwise). Deleting an object of another
    /// Realm, or one already deleted, cancels the write, which then throws.
    public func delete(_ object: ObjectBase) {
        _ = requireWrite(modifying: "add, remove, or create")
        guard let transaction else { return }
        guard let handle = object.handle, handle.realm.state === state else {
            recordWriteFailure(Realm.Error(Realm.Error.invalidInput,
                                           "Can only delete an object from the Realm it belongs to."))
            return
        }
        guard handle.exists else {
            recordWriteFailure(Realm.Error(Realm.Error.invalidInput, "Object has been deleted or invalidated."))
            return
        }
        do {
            try transaction.eraseObject(handle.key, in: handle.table.key)
        } catch {
            recordWriteFailure(Realm.Error.wrap(error))
        }
    }

    /// Deletes every object of a sequence (a `Results`, a `List`, an array…). The sequence is
    /// read first, so deleting the objects of a live collection deletes all of them.
    public func delete<S: Sequence>(_ objects: S) where S.Iterator.Element: ObjectBase {
        for object in Array(objects) {
            guard writeIsLive else { return }
            delete(object)
        }
    }

    /// Deletes every object of every model class.
    public func deleteAll() {
        _ = requireWrite(modifying: "add, remove, or create")
        guard let transaction else { return }
        do {
            for table in transaction.snapshot.allTables where !table.schema.name.hasPrefix("__") && !table.schema.isEmbedded {
                for key in table.objectKeys where transaction.snapshot.table(table.key)?.contains(key) == true {
                    try transaction.eraseObject(key, in: table.key)
                }
            }
        } catch {
            recordWriteFailure(Realm.Error.wrap(error))
        }
    }
}

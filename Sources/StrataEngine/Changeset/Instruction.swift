/// A property of one object: the target of a value or collection instruction.
package struct PropertyPath: Hashable, Sendable, CustomStringConvertible {
    /// The object's table.
    package var table: TableKey
    /// The object.
    package var object: ObjectKey
    /// The column index in the table's schema.
    package var column: Int

    /// Creates a path.
    package init(table: TableKey, object: ObjectKey, column: Int) {
        self.table = table
        self.object = object
        self.column = column
    }

    package var description: String { "\(table).\(object).\(column)" }
}

/// A change to one list.
package enum ListChange: Hashable, Sendable {
    case insert(index: Int, value: Value)
    case erase(index: Int)
    case set(index: Int, value: Value)
    case move(from: Int, to: Int)
    case clear
}

/// A change to one set.
package enum SetChange: Hashable, Sendable {
    case insert(Value)
    case erase(Value)
    case clear
}

/// A change to one dictionary.
package enum DictionaryChange: Hashable, Sendable {
    case set(key: String, value: Value)
    case erase(key: String)
    case clear
}

/// One logical step of a commit, exactly as it was applied.
///
/// A commit's instructions are its log record (durability), the recipe that turns snapshot *v*
/// into *v + 1* (MVCC and recovery), and the input from which notifications compute what
/// changed. Every effect is explicit: erasing an object is preceded by the instructions that
/// removed the links to it and erased its embedded children, so replay needs no rules.
package enum Instruction: Hashable, Sendable {
    // MARK: Schema
    /// Creates an empty table.
    case createTable(TableKey, TableSchema)
    /// Removes a table and its objects.
    case removeTable(TableKey)
    /// Appends a column; every existing object gets `fill`.
    case addColumn(TableKey, ColumnSchema, fill: Value)
    /// Removes the column at an index; later columns shift down.
    case removeColumn(TableKey, Int)
    /// Renames a column.
    case renameColumn(TableKey, Int, String)
    /// Adds or drops the secondary index of a column.
    case setIndexed(TableKey, Int, Bool)
    /// Makes the named column the primary key, or removes the primary key.
    case setPrimaryKey(TableKey, String?)

    // MARK: Objects
    /// Creates an object with all its values.
    case insertObject(TableKey, ObjectKey, [Value])
    /// Erases an object (its incoming links are already gone).
    case eraseObject(TableKey, ObjectKey)
    /// Sets a property to a value (for a collection column, replaces the whole collection).
    case setValue(PropertyPath, Value)
    /// Changes a list property.
    case list(PropertyPath, ListChange)
    /// Changes a set property.
    case set(PropertyPath, SetChange)
    /// Changes a dictionary property.
    case dictionary(PropertyPath, DictionaryChange)

    /// The table the instruction concerns.
    package var table: TableKey {
        switch self {
        case .createTable(let table, _), .removeTable(let table), .addColumn(let table, _, _),
             .removeColumn(let table, _), .renameColumn(let table, _, _), .setIndexed(let table, _, _),
             .setPrimaryKey(let table, _), .insertObject(let table, _, _), .eraseObject(let table, _):
            return table
        case .setValue(let path, _), .list(let path, _), .set(let path, _), .dictionary(let path, _):
            return path.table
        }
    }
}

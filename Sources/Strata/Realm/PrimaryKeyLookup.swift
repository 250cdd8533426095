import StrataEngine

/// The integer primary-key index a Realm's last `object(ofType:forPrimaryKey:)` used, kept for the
/// next lookup of the same class while the Realm reads the same version: a lookup then costs the
/// index's descent and the accessor, without resolving the table in the snapshot or copying the
/// index out of it (retains and releases that were about a fifth of a lookup at 1,000 rows).
///
/// Kept only outside write transactions and never on a frozen state (threads share those). The
/// index is not retained (``UnretainedIntegerKeyIndex``): it belongs to the version the Realm has
/// pinned, and `readKey` ties the entry to that version, since every new version the Realm moves
/// to (a refresh, a write begun or ended, an invalidation) changes the Realm's read key before
/// the pinned version can go.
struct PrimaryKeyLookup {
    /// The Realm's ``RealmState/readKey`` when the entry was made.
    let readKey: UInt64
    /// The model class.
    let type: ObjectIdentifier
    /// The primary key's Swift type (`Int` or `Int64`), which the key looked up must have.
    let keyType: ObjectIdentifier
    /// The class's table (the state's `tableInfos` holds it, and dropping that clears the entry).
    let table: Unmanaged<TableInfo>
    let index: UnretainedIntegerKeyIndex

    /// `key` as an int column stores it when it is an `Int` or an `Int64`; nil for other types.
    @inline(__always)
    static func integer<Key>(_ key: Key) -> Int64? {
        if Key.self == Int.self { return Int64(unsafeBitCast(key, to: Int.self)) }
        if Key.self == Int64.self { return unsafeBitCast(key, to: Int64.self) }
        return nil
    }
}

extension Realm {
    /// The object of `type` whose primary key is `key`, through the lookup kept from the last call
    /// (see ``PrimaryKeyLookup``): `.some(object or nil)`, or nil when that entry does not apply
    /// (another class or key type, another version, inside a write) and the full lookup must run.
    @inline(__always)
    func objectThroughLastLookup<Element: Object, KeyType>(_ type: Element.Type, _ key: KeyType) -> Element?? {
        guard let integer = PrimaryKeyLookup.integer(key) else { return nil }
        // The read key through the Realm's own copy of its address (`state.readKey` is a call).
        guard let last = state.lastKeyIndex, last.readKey == changeCount.pointee, last.type == ObjectIdentifier(type),
              last.keyType == ObjectIdentifier(KeyType.self) else { return nil }
        guard let object = last.index.object(forPrimaryKey: integer) else { return .some(nil) }
        return .some(last.table._withUnsafeGuaranteedRef { accessor(type, table: $0, key: object) })
    }

    /// Keeps the integer primary-key index of `table` for the next lookup of `type` with keys of
    /// type `keyType`, when the Realm reads a pinned version outside a write transaction.
    func keepLookup(of type: ObjectBase.Type, keyType: Any.Type, table: TableInfo) {
        let state = self.state
        guard !state.isFrozen, case .none = state.writeState, let pinned = state.pinned,
              let index = pinned.withSnapshot({ $0.unretainedIntegerPrimaryKeyIndex(inTable: table.key) }) else { return }
        state.lastKeyIndex = PrimaryKeyLookup(readKey: state.readKey, type: ObjectIdentifier(type),
                                              keyType: ObjectIdentifier(keyType),
                                              table: Unmanaged.passUnretained(table), index: index)
    }
}

import Foundation
import StrataEngine

/// Type-erased access to a `Persisted` property stored at a raw address inside an object: the
/// schema reads its declaration, `add` reads its unmanaged value, and the dynamic API reads and
/// writes it by name. (Binding writes the storage's first two fields directly; see
/// ``PersistedLayout``.)
protocol PersistedAccessor {
    static var column: _ColumnDescription { get }
    static var valueType: any _Persistable.Type { get }
    static func declaration(at address: UnsafeMutableRawPointer) -> (indexed: Bool, primaryKey: Bool, origin: String?)
    static func unmanagedStoredValue(at address: UnsafeMutableRawPointer, _ context: _WriteContext) -> StrataEngine.Value
    static func unmanagedValue(at address: UnsafeMutableRawPointer) -> Any
    /// `value` converted for storage when its type is exactly the property's type, else nil:
    /// the path of a primary-key lookup by a key of the property's own type, without the
    /// dynamic casts of loose conversion.
    static func storedValue<T>(ofExactType value: T, _ context: _WriteContext) -> StrataEngine.Value?
    static func setUnmanaged(at address: UnsafeMutableRawPointer, value: Any) -> Bool
    /// Makes the unmanaged collection the storage holds, if any, the managed collection at
    /// `context` (see ``ManagedInPlace``); a storage that never made its collection has none.
    static func adoptCollection(at address: UnsafeMutableRawPointer, _ context: _ReadContext)
    /// Drops the unmanaged value the storage holds (a managed accessor reads its row instead).
    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer)
}

extension Persisted: PersistedAccessor {
    static var column: _ColumnDescription { Value._rlmColumn }
    static var valueType: any _Persistable.Type { Value.self }

    /// `Self.self` rather than `Persisted<Value>.self`: the type is at hand, so no generic
    /// metadata lookup per call (this runs for every property of every added object).
    private static func storage(_ address: UnsafeMutableRawPointer) -> UnsafeMutablePointer<Self> {
        address.assumingMemoryBound(to: Self.self)
    }

    static func declaration(at address: UnsafeMutableRawPointer) -> (indexed: Bool, primaryKey: Bool, origin: String?) {
        let property = storage(address)
        var origin: String?
        if case .unmanaged(let value) = property.pointee.state, let linking = value as? any _LinkingObjectsProtocol {
            origin = linking.originPropertyName
        }
        return (property.pointee.isIndexed, property.pointee.isPrimaryKey, origin)
    }

    // Called through `any PersistedAccessor.Type` for every property of every added object, so
    // unspecialized: each call would look up the generic metadata of `State` at run time (a
    // tenth of a bulk insert). The common property types get specialized copies, which the
    // generic entry dispatches to by type.
    @_specialize(where Value == Int)
    @_specialize(where Value == Int64)
    @_specialize(where Value == String)
    @_specialize(where Value == Double)
    @_specialize(where Value == Bool)
    @_specialize(where Value == Date)
    @_specialize(where Value == ObjectId)
    @_specialize(where Value == String?)
    @_specialize(where Value == Int?)
    static func unmanagedStoredValue(at address: UnsafeMutableRawPointer, _ context: _WriteContext) -> StrataEngine.Value {
        storage(address).pointee.unmanagedValue()._rlmToStored(context)
    }

    static func storedValue<T>(ofExactType value: T, _ context: _WriteContext) -> StrataEngine.Value? {
        guard T.self == Value.self else { return nil }
        return withUnsafePointer(to: value) { pointer in
            UnsafeRawPointer(pointer).assumingMemoryBound(to: Value.self).pointee._rlmToStored(context)
        }
    }

    static func unmanagedValue(at address: UnsafeMutableRawPointer) -> Any {
        storage(address).pointee.unmanagedValue()
    }

    static func setUnmanaged(at address: UnsafeMutableRawPointer, value: Any) -> Bool {
        guard let typed = Value._rlmFromAny(value) ?? projectionForAbsentValue(value, as: Value.self) else { return false }
        storage(address).pointee.state = .unmanaged(typed)
        return true
    }

    static func adoptCollection(at address: UnsafeMutableRawPointer, _ context: _ReadContext) {
        guard case .unmanaged(let value) = storage(address).pointee.state,
              let collection = value as? any ManagedInPlace else { return }
        collection.becomeManaged(context)
    }

    static func releaseUnmanagedValue(at address: UnsafeMutableRawPointer) {
        // Swapped, so that the value (which may hold this object) is released after the access.
        var released = State.unmanagedNoDefault
        swap(&released, &storage(address).pointee.state)
    }
}

/// Where every `Persisted<Value>` keeps the fields binding writes: its first two stored
/// properties, laid out before anything whose size depends on `Value`, so their offsets are the
/// same for every `Value` (a test checks them against several instantiations).
enum PersistedLayout {
    /// `managedProperty`: the property's index in its class, -1 while unmanaged.
    static let propertyOffset = 0
    /// `managedOwner`: the object holding the storage.
    static let ownerOffset = MemoryLayout<Int>.stride
}

import Foundation
import StrataEngine

/// How `Object` and `EmbeddedObject` are stored as property values: as a link, adding the object
/// first when it is unmanaged (for an embedded object, creating it inside its parent).
extension _PersistableInsideOptional where Self: ObjectBase {
    public static var _rlmColumn: _ColumnDescription { _ColumnDescription(.link, objectType: self) }

    public static func _rlmDefaultValue() -> Self { Self() }

    public static func _rlmTracePlaceholder(_ tracer: KeyPathTracer) -> Self? { tracer.tracedObject(Self.self) }

    public static func _rlmFromStored(_ value: StrataEngine.Value, _ context: _ReadContext) -> Self {
        guard case .link(let link) = value, let object = context.realm.accessor(for: link, as: Self.self) else {
            return Self()
        }
        return object
    }

    public func _rlmToStored(_ context: _WriteContext) -> StrataEngine.Value {
        context.realm.link(to: self, context).map { .link($0) } ?? .null
    }

    /// A copy filled from a dictionary, an array in property order, or another object; nil when
    /// a value in it does not fit its property.
    static func copy(from value: Any) -> Self? {
        let object = Self()
        do {
            try ObjectValueFiller.fill(object, from: value)
            return object
        } catch {
            NestedFailure.current?.record(error)
            return nil
        }
    }
}

extension Object: _PersistableInsideOptional {
    /// The object itself, or a new unmanaged one from a dictionary, an array or another object.
    /// Inside `create`, an unmanaged object is copied (Realm leaves it unmanaged).
    public static func _rlmFromAny(_ value: Any) -> Self? {
        switch value {
        case let object as Self:
            if object.handle == nil, let givenKeys = GivenKeys.current { return givenKeys.copy(of: object) }
            return object
        case is [String: Any], is [Any], is ObjectBase: return copy(from: value)
        default: return nil
        }
    }
}

extension EmbeddedObject: _PersistableInsideOptional {
    /// An unmanaged embedded object from a dictionary, an array or another object; a managed one
    /// is copied, since an embedded object has exactly one owner.
    public static func _rlmFromAny(_ value: Any) -> Self? {
        switch value {
        case let object as Self where object.handle == nil:
            if let givenKeys = GivenKeys.current { return givenKeys.copy(of: object) }
            return object
        case is [String: Any], is [Any], is ObjectBase: return copy(from: value)
        default: return nil
        }
    }
}

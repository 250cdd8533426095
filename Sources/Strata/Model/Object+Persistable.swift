import Foundation
import StrataEngine

/// Links: an `Object` property (optional only) stores a link to the object, adding it first
/// when it is unmanaged.
extension Object: _PersistableInsideOptional {
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

    public static func _rlmFromAny(_ value: Any) -> Self? {
        switch value {
        case let object as Self: return object
        case is [String: Any], is [Any]:
            let object = Self()
            ObjectValueFiller.fill(object, from: value)
            return object
        case let other as ObjectBase:
            let object = Self()
            ObjectValueFiller.fill(object, from: other)
            return object
        default: return nil
        }
    }
}

/// Embedded objects: stored as an owned link; assigning an unmanaged one creates it inside the
/// parent.
extension EmbeddedObject: _PersistableInsideOptional {
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

    /// An unmanaged embedded object from a dictionary, an array or another object; a managed one
    /// is copied, since an embedded object has exactly one owner.
    public static func _rlmFromAny(_ value: Any) -> Self? {
        switch value {
        case let object as Self where object.handle == nil: return object
        case is [String: Any], is [Any], is ObjectBase:
            let object = Self()
            ObjectValueFiller.fill(object, from: value)
            return object
        default: return nil
        }
    }
}

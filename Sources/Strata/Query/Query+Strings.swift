import Foundation
import StrataEngine
import StrataQuery

/// Implementation detail: the types string operators apply to (`String`, `String?`).
public protocol _QueryString {}
extension String: _QueryString {}
extension Optional: _QueryString where Wrapped == String {}

/// Implementation detail: the types binary operators apply to (`Data`, `Data?`).
public protocol _QueryBinary {}
extension Data: _QueryBinary {}
extension Optional: _QueryBinary where Wrapped == Data {}

extension Query where T: _QueryString {
    private func test(_ op: ComparisonOperator, _ value: String, _ options: StringOptions) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(node, op, .string(value), options)))
    }

    /// `CONTAINS`.
    public func contains(_ value: String, options: StringOptions = []) -> Query<Bool> { test(.contains, value, options) }
    /// `BEGINSWITH`.
    public func starts(with value: String, options: StringOptions = []) -> Query<Bool> { test(.beginsWith, value, options) }
    /// `ENDSWITH`.
    public func ends(with value: String, options: StringOptions = []) -> Query<Bool> { test(.endsWith, value, options) }
    /// `==` with options.
    public func equals(_ value: String, options: StringOptions = []) -> Query<Bool> { test(.equal, value, options) }
    /// `!=` with options.
    public func notEquals(_ value: String, options: StringOptions = []) -> Query<Bool> { test(.notEqual, value, options) }
    /// `LIKE`: `*` matches any run of characters, `?` one character.
    public func like(_ value: String, caseInsensitive: Bool = false) -> Query<Bool> {
        test(.like, value, caseInsensitive ? .caseInsensitive : [])
    }
}

extension Query where T: _QueryBinary {
    private func test(_ op: ComparisonOperator, _ value: Data) -> Query<Bool> {
        Query<Bool>(.predicate(.comparison(node, op, .binary(Array(value)), [])))
    }

    /// The data contains `value`.
    public func contains(_ value: Data) -> Query<Bool> { test(.contains, value) }
    /// The data starts with `value`.
    public func starts(with value: Data) -> Query<Bool> { test(.beginsWith, value) }
    /// The data ends with `value`.
    public func ends(with value: Data) -> Query<Bool> { test(.endsWith, value) }
}

extension Query where T: _Persistable {
    /// The GeoJSON point at this property lies in `box`.
    public func geoWithin(_ box: GeoBox) -> Query<Bool> { Query<Bool>(.predicate(.geo(path, box.shape))) }
    /// The GeoJSON point at this property lies in `circle`.
    public func geoWithin(_ circle: GeoCircle) -> Query<Bool> { Query<Bool>(.predicate(.geo(path, circle.shape))) }
    /// The GeoJSON point at this property lies in `polygon`.
    ///
    /// Traps, with Realm's message, when the polygon is not a valid region: a ring that crosses
    /// itself, rings that share an edge, a hole not inside the outer ring, or nested holes.
    public func geoWithin(_ polygon: GeoPolygon) -> Query<Bool> {
        let shape = polygon.shape
        if let message = shape.invalidRegionMessage { preconditionFailure(message) }
        return Query<Bool>(.predicate(.geo(path, shape)))
    }
}

import Foundation
import StrataQuery

/// A point on the globe, as Realm Swift's `GeoPoint` (latitude −90…90, longitude −180…180).
public struct GeoPoint: Sendable, Hashable {
    /// Degrees of latitude.
    public let latitude: Double
    /// Degrees of longitude.
    public let longitude: Double
    /// The altitude, which points compare by but geospatial queries ignore, as in Realm.
    public let altitude: Double

    /// A point at altitude 0, or nil when a coordinate is out of range.
    public init?(latitude: Double, longitude: Double) {
        self.init(latitude: latitude, longitude: longitude, altitude: 0)
    }

    /// A point, or nil when a coordinate is out of range or not a number, or the altitude is
    /// negative or not a number, as Realm Swift's `GeoPoint(latitude:longitude:altitude:)`.
    public init?(latitude: Double, longitude: Double, altitude: Double) {
        guard (-90...90).contains(latitude), (-180...180).contains(longitude), altitude >= 0 else { return nil }
        self.latitude = latitude
        self.longitude = longitude
        self.altitude = altitude
    }

    var coordinate: GeoCoordinate { GeoCoordinate(latitude: latitude, longitude: longitude) }
}

/// A distance on the globe, as Realm Swift's `Distance`; stored as radians (distance over the
/// earth's radius, taken as Realm takes it: 6,378.1 km, 3,963.2 miles).
public struct Distance: Sendable, Hashable {
    /// The distance in radians.
    public let radians: Double

    private static let earthRadiusKilometers = 6_378.1
    private static let earthRadiusMiles = 3_963.2

    /// A distance in kilometers, or nil when negative.
    public static func kilometers(_ value: Double) -> Distance? {
        value >= 0 ? Distance(radians: value / earthRadiusKilometers) : nil
    }

    /// A distance in miles, or nil when negative.
    public static func miles(_ value: Double) -> Distance? {
        value >= 0 ? Distance(radians: value / earthRadiusMiles) : nil
    }

    /// A distance in degrees of arc, or nil when negative.
    public static func degrees(_ value: Double) -> Distance? { value >= 0 ? Distance(radians: value * .pi / 180) : nil }

    /// A distance in radians, or nil when negative.
    public static func radians(_ value: Double) -> Distance? { value >= 0 ? Distance(radians: value) : nil }

    /// The distance in kilometers.
    public func asKilometers() -> Double { radians * Self.earthRadiusKilometers }

    /// The distance in miles.
    public func asMiles() -> Double { radians * Self.earthRadiusMiles }

    /// The distance in degrees of arc.
    public func asDegrees() -> Double { radians * 180 / .pi }
}

/// A box between two corners, as Realm Swift's `GeoBox`.
public struct GeoBox: Sendable, Hashable {
    /// The south-west corner.
    public let bottomLeft: GeoPoint
    /// The north-east corner.
    public let topRight: GeoPoint

    /// Creates a box.
    public init(bottomLeft: GeoPoint, topRight: GeoPoint) {
        self.bottomLeft = bottomLeft
        self.topRight = topRight
    }

    /// Creates a box from (latitude, longitude) pairs, or nil when one is out of range.
    public init?(bottomLeft: (Double, Double), topRight: (Double, Double)) {
        guard let low = GeoPoint(latitude: bottomLeft.0, longitude: bottomLeft.1),
              let high = GeoPoint(latitude: topRight.0, longitude: topRight.1) else { return nil }
        self.init(bottomLeft: low, topRight: high)
    }

    var shape: GeoShape { .box(bottomLeft: bottomLeft.coordinate, topRight: topRight.coordinate) }
}

/// A circle on the globe, as Realm Swift's `GeoCircle`.
public struct GeoCircle: Sendable, Hashable {
    /// The center.
    public let center: GeoPoint
    /// The radius in radians.
    public let radiusInRadians: Double

    /// A circle with a radius in radians, or nil when the radius is negative.
    public init?(center: GeoPoint, radiusInRadians: Double) {
        guard radiusInRadians >= 0 else { return nil }
        self.center = center
        self.radiusInRadians = radiusInRadians
    }

    /// A circle with a radius given as a ``Distance``.
    public init(center: GeoPoint, radius: Distance) {
        self.center = center
        radiusInRadians = radius.radians
    }

    /// A circle around a (latitude, longitude) pair, or nil when it is out of range or the radius
    /// is negative.
    public init?(center: (Double, Double), radiusInRadians: Double) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radiusInRadians: radiusInRadians)
    }

    /// A circle around a (latitude, longitude) pair with a radius given as a ``Distance``, or nil
    /// when the pair is out of range.
    public init?(center: (Double, Double), radius: Distance) {
        guard let point = GeoPoint(latitude: center.0, longitude: center.1) else { return nil }
        self.init(center: point, radius: radius)
    }

    var shape: GeoShape { .circle(center: center.coordinate, radiusRadians: radiusInRadians) }
}

/// A polygon with optional holes, as Realm Swift's `GeoPolygon`: each ring has at least 4 points
/// and is closed (its first point equals its last).
public struct GeoPolygon: Sendable, Hashable {
    /// The outer boundary.
    public let outerRing: [GeoPoint]
    /// Rings inside the outer one that are excluded.
    public let holes: [[GeoPoint]]

    /// A polygon, or nil when a ring is too short or not closed.
    public init?(outerRing: [GeoPoint], holes: [[GeoPoint]] = []) {
        guard ([outerRing] + holes).allSatisfy({ $0.count >= 4 && $0.first == $0.last }) else { return nil }
        self.outerRing = outerRing
        self.holes = holes
    }

    /// A polygon whose holes are given one after another (`holes: ring1, ring2`), or nil when a
    /// ring is too short or not closed.
    public init?(outerRing: [GeoPoint], holes: [GeoPoint]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// A polygon from rings of (latitude, longitude) pairs whose holes are given one after
    /// another, or nil when a pair is out of range or a ring is too short or not closed.
    public init?(outerRing: [(Double, Double)], holes: [(Double, Double)]...) {
        self.init(outerRing: outerRing, holes: holes)
    }

    /// A polygon from rings of (latitude, longitude) pairs, or nil when a pair is out of range or
    /// a ring is too short or not closed.
    ///
    /// ```swift
    /// let square = GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])
    /// ```
    public init?(outerRing: [(Double, Double)], holes: [[(Double, Double)]] = []) {
        func points(_ ring: [(Double, Double)]) -> [GeoPoint]? {
            let points = ring.compactMap { GeoPoint(latitude: $0.0, longitude: $0.1) }
            return points.count == ring.count ? points : nil
        }
        guard let outer = points(outerRing) else { return nil }
        var inner: [[GeoPoint]] = []
        for hole in holes {
            guard let ring = points(hole) else { return nil }
            inner.append(ring)
        }
        self.init(outerRing: outer, holes: inner)
    }

    var shape: GeoShape {
        .polygon(outer: outerRing.map(\.coordinate), holes: holes.map { $0.map(\.coordinate) })
    }
}

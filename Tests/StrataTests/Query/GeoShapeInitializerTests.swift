import Foundation
import Strata
import Testing

/// Realm Swift's geospatial initializers from (latitude, longitude) pairs and `Distance`'s
/// conversions, as Realm code calls them.
@Suite("Geo shapes from coordinate pairs, and distances")
struct GeoShapeInitializerTests {
    @Test("polygons and circles from (latitude, longitude) pairs equal those from points; out of range is nil")
    func fromPairs() throws {
        let square = try #require(GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)],
                                             holes: [[(0.25, 0.25), (0.25, 0.75), (0.75, 0.75), (0.25, 0.25)]]))
        #expect(square.outerRing[1] == GeoPoint(latitude: 0, longitude: 1))
        #expect(square.holes.first?.count == 4)
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)]) != nil)
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 1), (91, 1), (0, 0)]) == nil, "latitude out of range")
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 1), (0, 0)]) == nil, "too short")
        #expect(GeoPolygon(outerRing: [(0, 0), (0, 1), (1, 1), (0, 0)], holes: [[(0, 0), (0, 200), (1, 1), (0, 0)]]) == nil)

        let circle = try #require(GeoCircle(center: (55.67, 12.56), radius: .kilometers(10)!))
        #expect(circle.center == GeoPoint(latitude: 55.67, longitude: 12.56))
        #expect(GeoCircle(center: (0, 70), radiusInRadians: 0) != nil)
        #expect(GeoCircle(center: (0, 70), radiusInRadians: -500) == nil)
        #expect(GeoCircle(center: (100, 70), radiusInRadians: 1) == nil)
    }

    @Test("a distance converts to kilometers, miles and degrees, with Realm's earth radius")
    func conversions() throws {
        let halfWay = try #require(Distance.radians(.pi))
        #expect(abs(halfWay.asDegrees() - 180) < 1e-9)
        #expect(abs(halfWay.asKilometers() - .pi * 6_378.1) < 1e-6)
        // Realm's figures: the equator, 40,075 km or 24,901 miles, is about 2π radians.
        #expect(abs(try #require(Distance.kilometers(40_075)).radians - 2 * .pi) < 2 * .pi * 1e-4)
        #expect(abs(try #require(Distance.miles(24_901)).radians - 2 * .pi) < 2 * .pi * 1e-4)
        #expect(abs(try #require(Distance.miles(100)).asMiles() - 100) < 1e-9)
        #expect(abs(try #require(Distance.kilometers(42)).asKilometers() - 42) < 1e-9)
    }

    @Test("holes may be given one after another, as points or pairs")
    func variadicHoles() throws {
        let hole: [(Double, Double)] = [(0.25, 0.25), (0.25, 0.5), (0.5, 0.5), (0.25, 0.25)]
        let other: [(Double, Double)] = [(0.6, 0.6), (0.6, 0.7), (0.7, 0.7), (0.6, 0.6)]
        let square: [(Double, Double)] = [(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)]
        let polygon = try #require(GeoPolygon(outerRing: square, holes: hole, other))
        #expect(polygon.holes.count == 2)
        #expect(GeoPolygon(outerRing: square, holes: hole, [(0, 0), (1, 1)]) == nil)
        let points = polygon.outerRing
        #expect(GeoPolygon(outerRing: points, holes: polygon.holes[0], polygon.holes[1]) == polygon)
    }

    @Test("a sort descriptor describes itself as Realm's does")
    func sortDescriptorDescription() {
        #expect(SortDescriptor(keyPath: "name").description == "SortDescriptor(keyPath: name, direction: ascending)")
        #expect(SortDescriptor(keyPath: "a.b", ascending: false).description
                == "SortDescriptor(keyPath: a.b, direction: descending)")
    }

}

import Foundation
@testable import StrataQuery
import Testing

/// Regions Realm refuses after `GEOWITHIN`, refused when the query is parsed (a literal or a
/// `$n` argument), with Realm's messages.
@Suite("GEOWITHIN regions Realm refuses")
struct GeoRegionValidationTests {
    /// A ring from (latitude, longitude) pairs, as Realm Swift's tuple-form `GeoPolygon`.
    private static func ring(_ points: [(Double, Double)]) -> [GeoCoordinate] {
        points.map { GeoCoordinate(latitude: $0.0, longitude: $0.1) }
    }

    private static let square = ring([(0, 0), (0, 1), (1, 1), (1, 0), (0, 0)])

    /// The message of the error parsing `loc GEOWITHIN $0` with `shape` gives.
    private static func refusal(_ shape: GeoShape) -> String? {
        do {
            _ = try RQLParser.parse("loc GEOWITHIN $0", arguments: [.geo(shape)])
            return nil
        } catch {
            return error.message
        }
    }

    @Test("a ring whose edges cross is refused, naming the edges and where they are")
    func crossingEdges() {
        let bowTie = Self.ring([(50, -50), (55, 55), (-50, 50), (70, -25), (50, -50)])
        #expect(Self.refusal(.polygon(outer: bowTie, holes: [])) ==
            "Invalid region in GEOWITHIN query for parameter 'GeoPolygon({[-50, 50, 0], [55, 55, 0], [50, -50, 0], "
            + "[-25, 70, 0], [-50, 50, 0]})': 'Ring 0 is not valid: 'Edges 0 and 2 cross. Edge locations in degrees: "
            + "[50.0000000, -50.0000000]-[55.0000000, 55.0000000] and [-50.0000000, 50.0000000]-[70.0000000, -25.0000000]''")
    }

    @Test("a hole outside the outer ring, across its edge, or along part of an edge is not contained")
    func holesNotContained() {
        let holes = [
            Self.ring([(2, 2), (2, 3), (3, 3), (3, 2), (2, 2)]),
            Self.ring([(0, 0.1), (0.5, 0.1), (0.5, 0.5), (0, 0.5), (0, 0.1)]),
            Self.ring([(0.25, 0.5), (0.75, 0.5), (0.75, 1.5), (0.25, 1.5), (0.25, 0.5)]),
        ]
        for hole in holes {
            let message = Self.refusal(.polygon(outer: Self.square, holes: [hole]))
            #expect(message?.hasSuffix("': 'Secondary ring 1 not contained by first exterior ring - secondary rings "
                                       + "must be holes in the first ring'") == true, "\(hole): \(String(describing: message))")
        }
    }

    @Test("an edge two rings share, and a hole inside another hole, are refused")
    func duplicateEdgeAndNestedHoles() {
        let outer = Self.ring([(50, -80), (60, 20), (20, 20), (-80, -80), (50, -80)])
        let sharing = Self.ring([(40.0096192, -75.5175781), (60, 20), (20, 20), (-75.5175781, -75.5175781),
                                 (40.0096192, -75.5175781)])
        #expect(Self.refusal(.polygon(outer: outer, holes: [sharing]))?
            .hasSuffix("': 'Polygon isn't valid: 'Duplicate edge: ring 1, edge 1 and ring 0, edge 1''") == true)
        let wide = Self.ring([(50, -80), (62, 22), (22, 22), (-80, -80), (50, -80)])
        let hole = Self.ring([(45, -77), (61, 21), (21, 21), (-77, -77), (45, -77)])
        let inner = Self.ring([(40.0096192, -75.5175780), (60, 20), (20, 20), (-75.5175781, -75.5175781),
                               (40.0096192, -75.5175780)])
        let nested = Self.refusal(.polygon(outer: wide, holes: [hole, inner]))
        #expect(nested?.hasSuffix("': 'Polygon interior rings cannot be nested: 2'") == true, "\(String(describing: nested))")
    }

    @Test("valid polygons, holes touching the outer ring at a point, boxes and circles are accepted; literals are checked too")
    func validRegions() throws {
        let hole = Self.ring([(0.25, 0.25), (0.25, 0.75), (0.75, 0.75), (0.75, 0.25), (0.25, 0.25)])
        #expect(Self.refusal(.polygon(outer: Self.square, holes: [hole])) == nil)
        let touching = Self.ring([(0, 0.5), (0.5, 0.75), (0.5, 0.25), (0, 0.5)])
        #expect(Self.refusal(.polygon(outer: Self.square, holes: [touching])) == nil)
        #expect(Self.refusal(.circle(center: GeoCoordinate(latitude: 0, longitude: 0), radiusRadians: 1)) == nil)
        #expect(throws: QueryError.self) {
            try RQLParser.parse("loc GEOWITHIN geoPolygon({[0, 0], [1, 1], [1, 0], [0, 1], [0, 0]})")
        }
        _ = try RQLParser.parse("loc GEOWITHIN geoPolygon({[0, 0], [1, 0], [1, 1], [0, 1], [0, 0]})")
    }

    /// A ring of `count` points around (`latitude`, `longitude`), `radius` degrees out.
    private static func circle(_ count: Int, latitude: Double, longitude: Double, radius: Double) -> [GeoCoordinate] {
        let points = (0..<count).map { index -> GeoCoordinate in
            let angle = Double(index) / Double(count) * 2 * .pi
            return GeoCoordinate(latitude: latitude + radius * sin(angle), longitude: longitude + radius * cos(angle))
        }
        return points + [points[0]]
    }

    @Test("rings of 10,000 points are checked edge against nearby edge: a valid one is accepted, and one crossing is found where it is")
    func largeRings() {
        for (latitude, longitude) in [(0.0, 0.0), (40.0, -75.0), (-60.0, 170.0)] {
            var ring = Self.circle(10_000, latitude: latitude, longitude: longitude, radius: 1)
            #expect(Self.refusal(.polygon(outer: ring, holes: [])) == nil)
            // Swapping two points makes edges 6999 and 7001 cross.
            ring.swapAt(7_000, 7_001)
            let message = Self.refusal(.polygon(outer: ring, holes: []))
            #expect(message?.contains("'Ring 0 is not valid: 'Edges 6999 and 7001 cross.") == true, "\(message ?? "accepted")")
            #expect(message?.contains("… 9969 more}") == true, "the message shows the first 32 points only")
            #expect((message?.count ?? 0) < 1_500)
        }
        let outer = Self.circle(5_000, latitude: 10, longitude: 10, radius: 2)
        let hole = Self.circle(2_000, latitude: 10, longitude: 10, radius: 1)
        #expect(Self.refusal(.polygon(outer: outer, holes: [hole])) == nil)
    }

    @Test("a ring whose edges pile up over one spot is refused as too complex instead of taking seconds")
    func piledUpEdges() {
        let piled = (0..<3_000).map { index in
            GeoCoordinate(latitude: Double(index % 7) * 1e-5, longitude: Double((index * 13) % 11) * 1e-5)
        }
        let message = Self.refusal(.polygon(outer: piled + [piled[0]], holes: []))
        #expect(message?.hasPrefix("Invalid region in GEOWITHIN query: the polygon (3001 points) is too complex to validate") == true,
                "\(message ?? "accepted")")
    }
}

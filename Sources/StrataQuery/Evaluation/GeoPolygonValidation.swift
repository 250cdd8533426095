import Foundation

/// Why a region cannot be used after `GEOWITHIN`, in Realm's words: a polygon whose ring crosses
/// itself, whose rings share an edge, whose hole is not inside the outer ring, or whose holes
/// are nested. Realm rejects these when the query is built; so does Strata, a `$n` argument or a
/// typed query's region included.
///
/// Edges are great-circle arcs, as Realm's are; whether a hole's points lie inside the outer
/// ring is tested as queries test points (``GeoMath``, on the longitude/latitude plane), so a
/// hole point very near a long edge may be judged differently from Realm.
extension GeoShape {
    /// Realm's message for this region when it is invalid, or nil when it is valid.
    package var invalidRegionMessage: String? {
        guard case .polygon(let outer, let holes) = self, let problem = Self.problem(rings: [outer] + holes) else {
            return nil
        }
        return "Invalid region in GEOWITHIN query for parameter '\(realmDescription)': '\(problem)'"
    }

    /// The region as Realm describes it in messages: `GeoPolygon({[lon, lat], …}, {…})`.
    package var realmDescription: String {
        func point(_ coordinate: GeoCoordinate) -> String {
            "[\(Self.shortNumber(coordinate.longitude)), \(Self.shortNumber(coordinate.latitude))]"
        }
        switch self {
        case .box(let bottomLeft, let topRight):
            return "GeoBox(\(point(bottomLeft)), \(point(topRight)))"
        case .circle(let center, let radius):
            return "GeoCircle(\(point(center)), \(Self.shortNumber(radius)))"
        case .polygon(let outer, let holes):
            let rings = ([outer] + holes).map { "{" + $0.map(point).joined(separator: ", ") + "}" }
            return "GeoPolygon(\(rings.joined(separator: ", ")))"
        }
    }

    /// The first problem of a polygon's rings (the outer ring first), checked in Realm's order.
    private static func problem(rings: [[GeoCoordinate]]) -> String? {
        let edges = rings.map(Self.edges(of:))
        for (ring, ringEdges) in edges.enumerated() {
            if let (first, second) = firstCrossing(ringEdges) {
                return "Ring \(ring) is not valid: 'Edges \(first) and \(second) cross. Edge locations in degrees: "
                    + "\(degrees(ringEdges[first])) and \(degrees(ringEdges[second]))'"
            }
        }
        if let duplicate = firstDuplicateEdge(edges) { return duplicate }
        for hole in 1..<rings.count where !contains(rings[0], rings[hole]) {
            return "Secondary ring \(hole) not contained by first exterior ring - "
                + "secondary rings must be holes in the first ring"
        }
        for hole in 1..<rings.count {
            if (1..<rings.count).contains(where: { $0 != hole && contains(rings[$0], rings[hole]) }) {
                return "Polygon interior rings cannot be nested: \(hole)"
            }
        }
        return nil
    }

    private typealias Edge = (from: GeoCoordinate, to: GeoCoordinate)

    /// The ring's edges, in order (a ring is closed: its last point repeats its first).
    private static func edges(of ring: [GeoCoordinate]) -> [Edge] {
        zip(ring, ring.dropFirst()).map { Edge(from: $0, to: $1) }
    }

    /// The first two edges of one ring that cross, or run along each other, other than
    /// neighbours meeting at their shared point.
    private static func firstCrossing(_ edges: [Edge]) -> (Int, Int)? {
        for first in edges.indices {
            for second in edges.indices where second > first + 1 && !(first == 0 && second == edges.count - 1) {
                if cross(edges[first], edges[second]) || overlap(edges[first], edges[second]) { return (first, second) }
            }
        }
        return nil
    }

    /// Realm's message for the first edge that appears in two rings (the later ring named first).
    private static func firstDuplicateEdge(_ edges: [[Edge]]) -> String? {
        for later in edges.indices {
            for (edge, candidate) in edges[later].enumerated() {
                for earlier in 0..<later {
                    if let match = edges[earlier].firstIndex(where: { same($0, candidate) }) {
                        return "Polygon isn't valid: 'Duplicate edge: ring \(later), edge \(edge) and ring "
                            + "\(earlier), edge \(match)'"
                    }
                }
            }
        }
        return nil
    }

    private static func same(_ a: Edge, _ b: Edge) -> Bool {
        (a.from == b.from && a.to == b.to) || (a.from == b.to && a.to == b.from)
    }

    /// Whether `inner` lies inside `ring`: its points inside or on `ring` (tested as queries test
    /// points), and none of its edges crossing one of `ring`'s or running along part of one
    /// (rings may touch at points, not share edges).
    private static func contains(_ ring: [GeoCoordinate], _ inner: [GeoCoordinate]) -> Bool {
        guard inner.allSatisfy({ GeoMath.inside($0, ring: ring) }) else { return false }
        let ringEdges = edges(of: ring)
        return !edges(of: inner).contains { edge in ringEdges.contains { cross(edge, $0) || overlap(edge, $0) } }
    }

    // Edges are arcs of great circles, as Realm's are: a point is a unit vector, and which side
    // of an arc's circle another point is on is the sign of a triple product.

    private static func unit(_ point: GeoCoordinate) -> SIMD3<Double> {
        let (latitude, longitude) = (point.latitude * .pi / 180, point.longitude * .pi / 180)
        return SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }

    private static func crossProduct(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// +1 when `c` is left of the arc `a`→`b` (counterclockwise), -1 right of it, 0 on its
    /// great circle (within rounding).
    private static func side(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Int {
        let product = (crossProduct(a, b) * c).sum()
        return product > 1e-12 ? 1 : product < -1e-12 ? -1 : 0
    }

    /// Whether two arcs cross at a point inside both (S2's crossing test: each arc's ends on
    /// opposite sides of the other's circle, on the same hemisphere).
    private static func cross(_ first: Edge, _ second: Edge) -> Bool {
        let (a, b, c, d) = (unit(first.from), unit(first.to), unit(second.from), unit(second.to))
        let acb = -side(a, b, c)
        guard acb != 0, side(a, b, d) == acb, -side(c, d, b) == acb else { return false }
        return side(c, d, a) == acb
    }

    /// Whether two arcs lie on one great circle and share more than a point.
    private static func overlap(_ first: Edge, _ second: Edge) -> Bool {
        let (a, b, c, d) = (unit(first.from), unit(first.to), unit(second.from), unit(second.to))
        guard a != b, side(a, b, c) == 0, side(a, b, d) == 0 else { return false }
        // Angles along the circle from `a`, towards `b`.
        let normal = crossProduct(a, b)
        let length = (normal * normal).sum().squareRoot()
        func angle(_ p: SIMD3<Double>) -> Double { atan2((crossProduct(a, p) * normal).sum(), (a * p).sum() * length) }
        let (low, high) = (min(angle(c), angle(d)), max(angle(c), angle(d)))
        return min(angle(b), high) - max(0, low) > 1e-12
    }

    /// An edge as Realm prints it: `[lat, lon]-[lat, lon]`, seven decimals.
    private static func degrees(_ edge: Edge) -> String {
        func point(_ c: GeoCoordinate) -> String {
            String(format: "[%.7f, %.7f]", c.latitude, c.longitude)
        }
        return point(edge.from) + "-" + point(edge.to)
    }

    /// A number as `%g` prints it (`0.5`, `-75.5176`, `40`).
    private static func shortNumber(_ value: Double) -> String { String(format: "%g", value) }
}

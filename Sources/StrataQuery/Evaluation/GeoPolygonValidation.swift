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
        guard case .polygon(let outer, let holes) = self else { return nil }
        switch Self.problem(rings: [outer] + holes) {
        case nil: return nil
        case .realm(let problem)?:
            return "Invalid region in GEOWITHIN query for parameter '\(realmDescription)': '\(problem)'"
        case .tooComplex?:
            return "Invalid region in GEOWITHIN query: the polygon (\(([outer] + holes).map(\.count).reduce(0, +)) points) "
                + "is too complex to validate: more than \(GeoArcSweep.pairBudget) pairs of edges, or of points and "
                + "edges, lie close to each other"
        }
    }

    /// The region as Realm describes it in messages: `GeoPolygon({[lon, lat, alt], …}, {…})`
    /// (the first 32 points of each ring). Queries ignore altitude and regions do not keep it,
    /// so it prints as 0, as Realm Swift prints a point made without one.
    package var realmDescription: String {
        func point(_ coordinate: GeoCoordinate) -> String {
            "[\(Self.shortNumber(coordinate.longitude)), \(Self.shortNumber(coordinate.latitude)), 0]"
        }
        switch self {
        case .box(let bottomLeft, let topRight):
            return "GeoBox(\(point(bottomLeft)), \(point(topRight)))"
        case .circle(let center, let radius):
            return "GeoCircle(\(point(center)), \(Self.shortNumber(radius)))"
        case .polygon(let outer, let holes):
            // Realm prints every point; a ring of thousands would make a message of a page.
            let shown = 32
            let rings = ([outer] + holes).map { ring in
                "{" + ring.prefix(shown).map(point).joined(separator: ", ")
                    + (ring.count > shown ? ", … \(ring.count - shown) more" : "") + "}"
            }
            return "GeoPolygon(\(rings.joined(separator: ", ")))"
        }
    }

    /// What is wrong with a polygon: Realm's words, or more work than validation may take.
    private enum Problem {
        case realm(String)
        case tooComplex
    }

    /// The first problem of a polygon's rings (the outer ring first), checked in Realm's order.
    private static func problem(rings: [[GeoCoordinate]]) -> Problem? {
        let arcs = rings.map(Self.arcs(of:))
        for (ring, ringArcs) in arcs.enumerated() {
            guard let crossing = firstCrossing(ringArcs) else { return .tooComplex }
            if let (first, second) = crossing {
                return .realm("Ring \(ring) is not valid: 'Edges \(first) and \(second) cross. Edge locations in "
                    + "degrees: \(degrees(ringArcs[first])) and \(degrees(ringArcs[second]))'")
            }
        }
        if let duplicate = firstDuplicateEdge(arcs) { return .realm(duplicate) }
        for hole in 1..<rings.count {
            guard let inside = contains(rings[0], arcs[0], rings[hole], arcs[hole]) else { return .tooComplex }
            if !inside {
                return .realm("Secondary ring \(hole) not contained by first exterior ring - "
                    + "secondary rings must be holes in the first ring")
            }
        }
        let boxes = rings.map(PlaneBox.init)
        for hole in 1..<rings.count {
            for other in 1..<rings.count where other != hole && boxes[other].holds(boxes[hole]) {
                guard let inside = contains(rings[other], arcs[other], rings[hole], arcs[hole]) else { return .tooComplex }
                if inside { return .realm("Polygon interior rings cannot be nested: \(hole)") }
            }
        }
        return nil
    }

    /// The ring's edges, in order (a ring is closed: its last point repeats its first).
    private static func arcs(of ring: [GeoCoordinate]) -> [GeoArc] {
        zip(ring, ring.dropFirst()).map { GeoArc(from: $0, to: $1) }
    }

    /// The first two edges of one ring (the lowest first index, then second) that cross, or run
    /// along each other, other than neighbours meeting at their shared point; `.some(nil)` when
    /// none do, nil when the ring is too complex to check.
    private static func firstCrossing(_ arcs: [GeoArc]) -> (Int, Int)?? {
        var found: (Int, Int)?
        let complete = GeoArcSweep.visitPairs(arcs) { first, second in
            guard second > first + 1, !(first == 0 && second == arcs.count - 1) else { return }
            if let current = found, current <= (first, second) { return }
            if arcs[first].meets(arcs[second]) { found = (first, second) }
        }
        return complete ? .some(found) : nil
    }

    /// Realm's message for the first edge that appears in two rings (the later ring named first,
    /// with the first ring and edge it appears in).
    private static func firstDuplicateEdge(_ arcs: [[GeoArc]]) -> String? {
        struct Key: Hashable {
            let ends: [GeoCoordinate]
            init(_ arc: GeoArc) {
                let ordered = (arc.from.latitude, arc.from.longitude) <= (arc.to.latitude, arc.to.longitude)
                ends = ordered ? [arc.from, arc.to] : [arc.to, arc.from]
            }
        }
        var firstSeen: [Key: (ring: Int, edge: Int)] = [:]
        for (ring, ringArcs) in arcs.enumerated() {
            for (edge, arc) in ringArcs.enumerated() where firstSeen[Key(arc)] == nil {
                firstSeen[Key(arc)] = (ring, edge)
            }
        }
        for later in arcs.indices {
            for (edge, arc) in arcs[later].enumerated() {
                if let earlier = firstSeen[Key(arc)], earlier.ring < later {
                    return "Polygon isn't valid: 'Duplicate edge: ring \(later), edge \(edge) and ring "
                        + "\(earlier.ring), edge \(earlier.edge)'"
                }
            }
        }
        return nil
    }

    /// Whether `inner` lies inside `ring`: its points inside or on `ring` (tested as queries test
    /// points), and none of its edges crossing one of `ring`'s or running along part of one
    /// (rings may touch at points, not share edges). Nil when that is too much work to check.
    private static func contains(_ ring: [GeoCoordinate], _ ringArcs: [GeoArc],
                                 _ inner: [GeoCoordinate], _ innerArcs: [GeoArc]) -> Bool? {
        guard inner.count * ring.count <= GeoArcSweep.pointTestBudget else { return nil }
        guard inner.allSatisfy({ GeoMath.inside($0, ring: ring) }) else { return false }
        var meets = false
        let split = ringArcs.count
        let complete = GeoArcSweep.visitPairs(ringArcs + innerArcs) { first, second in
            guard !meets, first < split, second >= split else { return }
            meets = ringArcs[first].meets(innerArcs[second - split])
        }
        return complete ? !meets : nil
    }

    /// A ring's extent on the longitude/latitude plane, where points are tested against rings.
    private struct PlaneBox {
        let low: SIMD2<Double>
        let high: SIMD2<Double>

        init(_ ring: [GeoCoordinate]) {
            let points = ring.map { SIMD2($0.longitude, $0.latitude) }
            low = points.reduce(SIMD2(repeating: .infinity)) { pointwiseMin($0, $1) }
            high = points.reduce(SIMD2(repeating: -.infinity)) { pointwiseMax($0, $1) }
        }

        /// Whether `other` lies within this box (as it must to lie within the ring).
        func holds(_ other: PlaneBox) -> Bool { all(low .<= other.low) && all(other.high .<= high) }
    }

    /// An edge as Realm prints it: `[lat, lon]-[lat, lon]`, seven decimals.
    private static func degrees(_ edge: GeoArc) -> String {
        func point(_ c: GeoCoordinate) -> String {
            String(format: "[%.7f, %.7f]", c.latitude, c.longitude)
        }
        return point(edge.from) + "-" + point(edge.to)
    }

    /// A number as `%g` prints it (`0.5`, `-75.5176`, `40`).
    private static func shortNumber(_ value: Double) -> String { String(format: "%g", value) }
}

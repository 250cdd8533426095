import Foundation

/// An edge of a polygon ring as `GEOWITHIN` validation tests it: an arc of a great circle (as
/// Realm's edges are), its ends as unit vectors, and a box around the arc.
///
/// Which side of an arc's circle a point lies on is the sign of a triple product. The box holds
/// the arc: every point of an arc of angle θ is within 1 - cos(θ/2) of its chord, so the chord's
/// box grown by that much (and a rounding margin) holds the whole arc. Two arcs that cross or run
/// along each other share a point, so their boxes meet: pairs whose boxes do not meet need no test.
struct GeoArc {
    let from: GeoCoordinate
    let to: GeoCoordinate
    let a: SIMD3<Double>
    let b: SIMD3<Double>
    let low: SIMD3<Double>
    let high: SIMD3<Double>

    init(from: GeoCoordinate, to: GeoCoordinate) {
        self.from = from
        self.to = to
        a = Self.unit(from)
        b = Self.unit(to)
        let cosine = max(-1, min(1, (a * b).sum()))
        // cos(θ/2) = √((1 + cos θ) / 2); near-antipodal ends make an arc of any direction.
        let margin = 1 - ((1 + cosine) / 2).squareRoot() + 1e-9
        low = pointwiseMin(a, b) - SIMD3(repeating: margin)
        high = pointwiseMax(a, b) + SIMD3(repeating: margin)
    }

    static func unit(_ point: GeoCoordinate) -> SIMD3<Double> {
        let (latitude, longitude) = (point.latitude * .pi / 180, point.longitude * .pi / 180)
        return SIMD3(cos(latitude) * cos(longitude), cos(latitude) * sin(longitude), sin(latitude))
    }

    /// Whether the boxes of the two arcs meet (a precondition of crossing or running along).
    func boxMeets(_ other: GeoArc) -> Bool {
        all(low .<= other.high) && all(other.low .<= high)
    }

    /// Whether the two arcs cross at a point inside both (S2's crossing test: each arc's ends on
    /// opposite sides of the other's circle, on the same hemisphere).
    func crosses(_ other: GeoArc) -> Bool {
        let (c, d) = (other.a, other.b)
        let acb = -Self.side(a, b, c)
        guard acb != 0, Self.side(a, b, d) == acb, -Self.side(c, d, b) == acb else { return false }
        return Self.side(c, d, a) == acb
    }

    /// Whether the two arcs lie on one great circle and share more than a point.
    func runsAlong(_ other: GeoArc) -> Bool {
        let (c, d) = (other.a, other.b)
        guard a != b, Self.side(a, b, c) == 0, Self.side(a, b, d) == 0 else { return false }
        // Angles along the circle from `a`, towards `b`.
        let normal = Self.crossProduct(a, b)
        let length = (normal * normal).sum().squareRoot()
        func angle(_ p: SIMD3<Double>) -> Double {
            atan2((Self.crossProduct(a, p) * normal).sum(), (a * p).sum() * length)
        }
        let (lowAngle, highAngle) = (min(angle(c), angle(d)), max(angle(c), angle(d)))
        return min(angle(b), highAngle) - max(0, lowAngle) > 1e-12
    }

    /// Whether the arcs cross or run along each other.
    func meets(_ other: GeoArc) -> Bool { crosses(other) || runsAlong(other) }

    private static func crossProduct(_ a: SIMD3<Double>, _ b: SIMD3<Double>) -> SIMD3<Double> {
        SIMD3(a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x)
    }

    /// +1 when `c` is left of the arc `a`→`b` (counterclockwise), -1 right of it, 0 on its
    /// great circle (within rounding).
    private static func side(_ a: SIMD3<Double>, _ b: SIMD3<Double>, _ c: SIMD3<Double>) -> Int {
        let product = (crossProduct(a, b) * c).sum()
        return product > 1e-12 ? 1 : product < -1e-12 ? -1 : 0
    }
}

/// The pairs of arcs whose boxes meet, found by a sweep: arcs sorted by where their boxes start
/// along one axis, each compared only with the earlier ones whose boxes reach it. The axis is
/// the one along which the boxes spread most (a polygon near latitude 0, longitude 0 barely
/// spreads along x). A polygon's edges are mostly short, so this visits few pairs beyond each
/// edge's neighbours, where comparing every pair takes seconds for the 10,000 points a 64 KB
/// query can hold.
enum GeoArcSweep {
    /// At most this many pairs of arcs that overlap along the sweep's axis are looked at; a
    /// region that needs more (edges piled up over one place, as if made to be slow) is refused.
    static let pairBudget = 1_000_000
    /// At most this many point-against-edge tests decide whether a ring holds another.
    static let pointTestBudget = 16_000_000

    /// Calls `visit(i, j)` (indexes into `arcs`, `i < j`) for every pair whose boxes meet.
    ///
    /// - Returns: false when the pair budget ran out first (not every pair was visited).
    static func visitPairs(_ arcs: [GeoArc], _ visit: (Int, Int) -> Void) -> Bool {
        guard !arcs.isEmpty else { return true }
        let centers = arcs.map { ($0.low + $0.high) / 2 }
        let spread = centers.reduce(SIMD3(repeating: -Double.infinity), pointwiseMax)
            - centers.reduce(SIMD3(repeating: Double.infinity), pointwiseMin)
        let axis = spread.x >= spread.y && spread.x >= spread.z ? 0 : spread.y >= spread.z ? 1 : 2
        let order = arcs.indices.sorted { arcs[$0].low[axis] < arcs[$1].low[axis] }
        var active: [Int] = []
        var looked = 0
        for index in order {
            let arc = arcs[index]
            active.removeAll { arcs[$0].high[axis] < arc.low[axis] }
            looked += active.count
            if looked > pairBudget { return false }
            for other in active where arcs[other].boxMeets(arc) {
                visit(min(index, other), max(index, other))
            }
            active.append(index)
        }
        return true
    }
}

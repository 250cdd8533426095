import Foundation

/// Point-in-shape tests for `GEOWITHIN`.
///
/// Boxes and polygons are tested on the longitude/latitude plane (a box may cross the
/// antimeridian); circles use the great-circle distance. Realm uses spherical geometry (S2) for
/// polygon edges, so points very close to a long polygon edge may be classified differently.
enum GeoMath {
    static func contains(_ shape: GeoShape, _ point: GeoCoordinate) -> Bool {
        switch shape {
        case .box(let bottomLeft, let topRight):
            guard point.latitude >= bottomLeft.latitude, point.latitude <= topRight.latitude else { return false }
            if bottomLeft.longitude <= topRight.longitude {
                return point.longitude >= bottomLeft.longitude && point.longitude <= topRight.longitude
            }
            return point.longitude >= bottomLeft.longitude || point.longitude <= topRight.longitude
        case .circle(let center, let radius):
            return distance(center, point) <= radius
        case .polygon(let outer, let holes):
            return inside(point, ring: outer) && !holes.contains { inside(point, ring: $0) }
        }
    }

    /// The great-circle distance in radians (haversine).
    static func distance(_ a: GeoCoordinate, _ b: GeoCoordinate) -> Double {
        let (lat1, lat2) = (a.latitude * .pi / 180, b.latitude * .pi / 180)
        let dLat = lat2 - lat1
        let dLon = (b.longitude - a.longitude) * .pi / 180
        let h = sin(dLat / 2) * sin(dLat / 2) + cos(lat1) * cos(lat2) * sin(dLon / 2) * sin(dLon / 2)
        return 2 * asin(min(1, sqrt(h)))
    }

    /// Ray casting; points on an edge count as inside.
    static func inside(_ point: GeoCoordinate, ring: [GeoCoordinate]) -> Bool {
        guard ring.count >= 3 else { return false }
        var isInside = false
        var j = ring.count - 1
        for i in ring.indices {
            let (a, b) = (ring[i], ring[j])
            if onSegment(point, a, b) { return true }
            if (a.latitude > point.latitude) != (b.latitude > point.latitude) {
                let crossing = (b.longitude - a.longitude) * (point.latitude - a.latitude) / (b.latitude - a.latitude)
                    + a.longitude
                if point.longitude < crossing { isInside.toggle() }
            }
            j = i
        }
        return isInside
    }

    private static func onSegment(_ p: GeoCoordinate, _ a: GeoCoordinate, _ b: GeoCoordinate) -> Bool {
        let cross = (b.longitude - a.longitude) * (p.latitude - a.latitude) - (b.latitude - a.latitude) * (p.longitude - a.longitude)
        guard abs(cross) < 1e-12 else { return false }
        return p.longitude >= min(a.longitude, b.longitude) && p.longitude <= max(a.longitude, b.longitude)
            && p.latitude >= min(a.latitude, b.latitude) && p.latitude <= max(a.latitude, b.latitude)
    }
}

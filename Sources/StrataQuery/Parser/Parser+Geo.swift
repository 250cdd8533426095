import StrataEngine

/// The shapes after `GEOWITHIN`: `geoBox`, `geoCircle`, `geoPolygon` or a `$n` geo argument.
extension Parser {
    mutating func parseGeoShape() throws(QueryError) -> GeoShape {
        let token = current
        if case .argument(let number) = token.kind {
            guard case .geo(let shape) = try argument(number) else {
                throw QueryError(position: token.start, problem: "argument $\(number) after GEOWITHIN must be a geo shape")
            }
            advance()
            return try valid(shape, at: token)
        }
        let name = token.keyword
        guard name == "geobox" || name == "geocircle" || name == "geopolygon" else {
            throw expected("geoBox(…), geoCircle(…), geoPolygon(…) or a $n argument")
        }
        advance()
        try expect("(")
        let shape: GeoShape
        switch name {
        case "geobox":
            let bottomLeft = try parseGeoPoint()
            try expect(",")
            shape = .box(bottomLeft: bottomLeft, topRight: try parseGeoPoint())
        case "geocircle":
            let center = try parseGeoPoint()
            try expect(",")
            let radiusToken = current
            let radius = try parseGeoNumber()
            guard radius >= 0 else {
                throw QueryError(position: radiusToken.start, problem: "the radius of geoCircle must not be negative")
            }
            shape = .circle(center: center, radiusRadians: radius)
        default:
            var rings = [try parseGeoRing()]
            while isAt(",") {
                advance()
                rings.append(try parseGeoRing())
            }
            shape = .polygon(outer: rings[0], holes: Array(rings.dropFirst()))
        }
        try expect(")", "')' to end \(sourceText(token.start, token.end))")
        return try valid(shape, at: token)
    }

    /// `shape`, unless it is a region Realm refuses (a polygon crossing itself, with a hole
    /// outside it or nested holes): then the query is invalid, with Realm's message.
    private func valid(_ shape: GeoShape, at token: Token) throws(QueryError) -> GeoShape {
        if let message = shape.invalidRegionMessage { throw QueryError(position: token.start, message: message) }
        return shape
    }

    /// `[longitude, latitude]`.
    private mutating func parseGeoPoint() throws(QueryError) -> GeoCoordinate {
        try expect("[", "'[longitude, latitude]'")
        let longitudeToken = current
        let longitude = try parseGeoNumber()
        try expect(",")
        let latitudeToken = current
        let latitude = try parseGeoNumber()
        try expect("]", "']' to end the point")
        guard (-180...180).contains(longitude) else {
            throw QueryError(position: longitudeToken.start, problem: "longitude \(longitude) is outside -180...180")
        }
        guard (-90...90).contains(latitude) else {
            throw QueryError(position: latitudeToken.start, problem: "latitude \(latitude) is outside -90...90")
        }
        return GeoCoordinate(latitude: latitude, longitude: longitude)
    }

    /// `{[lon, lat], …}`: a closed ring of at least four points.
    private mutating func parseGeoRing() throws(QueryError) -> [GeoCoordinate] {
        let open = current
        try expect("{", "'{' to start a ring of points")
        var points = [try parseGeoPoint()]
        while isAt(",") {
            advance()
            points.append(try parseGeoPoint())
        }
        try expect("}", "',' or '}' to end the ring")
        guard points.count >= 4, points.first == points.last else {
            throw QueryError(position: open.start,
                             problem: "a polygon ring needs at least 4 points and must end with its first point")
        }
        return points
    }

    /// An integer or decimal literal.
    private mutating func parseGeoNumber() throws(QueryError) -> Double {
        let number: Double
        switch current.kind {
        case .literal(.int(let value)): number = Double(value)
        case .literal(.double(let value)): number = value
        default: throw expected("a number")
        }
        advance()
        return number
    }
}

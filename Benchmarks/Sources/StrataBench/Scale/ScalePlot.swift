import Foundation

/// The scale series as an SVG figure: open time and anonymous memory after opening against the
/// row count, Strata beside SQLite (GRDB), both axes logarithmic.
struct ScalePlot {
    let points: [ScaleSeries.Point]

    private static let panelWidth = 420.0, panelHeight = 300.0, margin = 60.0
    private static let colors = ["strata": "#1f77b4", "grdb": "#ff7f0e"]
    private static let names = ["strata": "Strata", "grdb": "SQLite (GRDB)"]

    var svg: String {
        let width = 2 * (Self.panelWidth + Self.margin) + Self.margin
        let height = Self.panelHeight + 2 * Self.margin + 10
        var body = ""
        body += panel(x: Self.margin, key: "open_ms", scale: 1, title: "open after a clean close, cold (ms)")
        body += panel(x: 2 * Self.margin + Self.panelWidth, key: "rssanon_open_kb", scale: 1 / 1024,
                      title: "RssAnon after open (MB)")
        var legend = ""
        for (index, store) in ["strata", "grdb"].enumerated() {
            let x = Self.margin + Double(index) * 120, y = 18.0
            legend += "<rect x=\"\(x)\" y=\"\(y - 7)\" width=\"12\" height=\"4\" fill=\"\(Self.colors[store]!)\"/>"
            legend += "<text x=\"\(x + 18)\" y=\"\(y)\" font-size=\"12\">\(Self.names[store]!)</text>"
        }
        return """
        <svg xmlns="http://www.w3.org/2000/svg" width="\(Int(width))" height="\(Int(height))" \
        font-family="sans-serif"><rect width="100%" height="100%" fill="white"/>\(legend)\(body)</svg>

        """
    }

    /// One panel at horizontal offset `x`: figure `key` × `scale` against rows.
    private func panel(x: Double, key: String, scale: Double, title: String) -> String {
        let values = points.compactMap { $0.figures[key].map { $0 * scale } }.filter { $0 > 0 }
        let rows = points.map { Double($0.rows) }
        guard let low = values.min(), let high = values.max(), let fewest = rows.min(), let most = rows.max() else {
            return ""
        }
        let yRange = (floor(log10(low)), max(ceil(log10(high)), floor(log10(low)) + 1))
        let xRange = (floor(log10(fewest)), max(ceil(log10(most)), floor(log10(fewest)) + 1))
        let top = Self.margin + 10, bottom = top + Self.panelHeight
        func px(_ value: Double) -> Double {
            x + (log10(value) - xRange.0) / (xRange.1 - xRange.0) * Self.panelWidth
        }
        func py(_ value: Double) -> Double {
            bottom - (log10(value) - yRange.0) / (yRange.1 - yRange.0) * Self.panelHeight
        }
        var svg = "<text x=\"\(x)\" y=\"\(top - 12)\" font-size=\"14\">\(title)</text>"
        svg += "<rect x=\"\(x)\" y=\"\(top)\" width=\"\(Self.panelWidth)\" height=\"\(Self.panelHeight)\" fill=\"none\" stroke=\"#888\"/>"
        for exponent in stride(from: yRange.0, through: yRange.1, by: 1) {
            let y = py(pow(10, exponent))
            svg += "<line x1=\"\(x)\" y1=\"\(y)\" x2=\"\(x + Self.panelWidth)\" y2=\"\(y)\" stroke=\"#ddd\"/>"
            svg += "<text x=\"\(x - 6)\" y=\"\(y + 4)\" font-size=\"11\" text-anchor=\"end\">\(Self.label(pow(10, exponent)))</text>"
        }
        for exponent in stride(from: xRange.0, through: xRange.1, by: 1) {
            let position = px(pow(10, exponent))
            svg += "<text x=\"\(position)\" y=\"\(bottom + 16)\" font-size=\"11\" text-anchor=\"middle\">\(Self.label(pow(10, exponent)))</text>"
        }
        svg += "<text x=\"\(x + Self.panelWidth / 2)\" y=\"\(bottom + 36)\" font-size=\"12\" text-anchor=\"middle\">rows</text>"
        for store in ["strata", "grdb"] {
            let series = points.filter { $0.store == store }.compactMap { point in
                point.figures[key].map { (Double(point.rows), $0 * scale) }
            }.filter { $0.1 > 0 }
            let color = Self.colors[store]!
            let path = series.map { "\(px($0.0)),\(py($0.1))" }.joined(separator: " ")
            svg += "<polyline points=\"\(path)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"2\"/>"
            for (rows, value) in series {
                svg += "<circle cx=\"\(px(rows))\" cy=\"\(py(value))\" r=\"4\" fill=\"\(color)\"/>"
                svg += "<text x=\"\(px(rows) + 6)\" y=\"\(py(value) - 6)\" font-size=\"10\" fill=\"\(color)\">\(Table.format(value))</text>"
            }
        }
        return svg
    }

    /// A power of ten as 0.1, 1, 10, 100, 1k, 10k, 100k, 1M, 10M …
    private static func label(_ value: Double) -> String {
        switch value {
        case 1e6...: String(format: "%gM", value / 1e6)
        case 1e3...: String(format: "%gk", value / 1e3)
        default: String(format: "%g", value)
        }
    }
}

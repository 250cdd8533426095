/// A table for a terminal: a header, a rule, one line per row, every column as wide as its
/// widest cell, and the widest columns narrowed (their cells cut with `…`) until the table fits
/// the terminal's width. Cells are single lines (line breaks show as `⏎`).
public struct TableRenderer {
    /// The column titles.
    public let columns: [String]
    /// The width to fit, in characters.
    public let width: Int
    /// The widest any column is drawn before the table is fitted to the width.
    public var maximumColumnWidth = 48

    /// A table of `columns` that fits `width` characters.
    public init(columns: [String], width: Int) {
        self.columns = columns
        self.width = width
    }

    /// The table's lines. Columns that do not fit even at their narrowest are left out, and a
    /// last line names them.
    public func lines(_ rows: [[String]]) -> [String] {
        let cells = rows.map { $0.map(Self.singleLine) }
        var widths = columns.indices.map { column in
            min(maximumColumnWidth, ([columns[column].count] + cells.map { $0[column].count }).max() ?? 0)
        }
        // As many columns as fit at their narrowest (their natural width, at most six).
        var shown = 0, narrowest = 0
        while shown < columns.count {
            let next = narrowest + min(widths[shown], Self.narrowestWidth) + (shown > 0 ? 3 : 0)
            guard next <= width || shown == 0 else { break }
            narrowest = next
            shown += 1
        }
        widths = Array(widths.prefix(shown))
        // Narrow the widest column, one character at a time, until the line fits.
        while widths.reduce(0, +) + (shown - 1) * 3 > width, let widest = widths.indices.max(by: { widths[$0] < widths[$1] }),
              widths[widest] > Self.narrowestWidth {
            widths[widest] -= 1
        }
        func line(_ values: [String]) -> String {
            widths.indices.map { Self.fit(values[$0], widths[$0]) }.joined(separator: " │ ")
        }
        let rule = widths.map { String(repeating: "─", count: $0) }.joined(separator: "─┼─")
        var lines = [line(columns), rule] + cells.map(line)
        if shown < columns.count {
            let hidden = columns.count - shown
            lines.append(Self.fit("(\(hidden) more column\(hidden == 1 ? "" : "s"): "
                                  + columns[shown...].joined(separator: ", ") + "; see --format json)", width)
                .trimmingTrailingSpaces)
        }
        return lines
    }

    /// The narrowest a column is drawn.
    public static let narrowestWidth = 6

    /// `text` cut (with `…`) or padded to exactly `width` characters.
    public static func fit(_ text: String, _ width: Int) -> String {
        if text.count > width { return String(text.prefix(max(0, width - 1))) + "…" }
        return text + String(repeating: " ", count: width - text.count)
    }

    private static func singleLine(_ text: String) -> String {
        text.contains(where: \.isNewline) ? String(text.map { $0.isNewline ? "⏎" : $0 }) : text
    }
}

private extension String {
    var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}

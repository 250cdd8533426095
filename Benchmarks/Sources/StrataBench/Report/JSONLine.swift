import Foundation

/// The harness's output: one JSON object per line, fields in a fixed order, the same field
/// names for both stores.
enum JSONLine {
    static func print(workload: String, store: String, pairing: Pairing?, reps: String, _ figures: Figures) {
        var fields: [(String, String)] = [
            ("workload", quoted(workload)), ("store", quoted(store)),
            ("durability", quoted(pairing?.rawValue ?? "normal (not a durability comparison)")),
            ("sync", quoted(figures.sync)), ("reps", quoted(reps)),
        ]
        fields += figures.values.map { ($0.key, render($0.value)) }
        fields.append(("note", figures.note.map(quoted) ?? "null"))
        Swift.print("{" + fields.map { "\(quoted($0.0)):\($0.1)" }.joined(separator: ",") + "}")
        fflush(nil)
    }

    static func render(_ figure: Figure) -> String {
        switch figure {
        case .number(let value): String(format: value >= 100 ? "%.0f" : "%.2f", value)
        case .integer(let value): String(value)
        case .text(let value): quoted(value)
        case .missing: "null"
        }
    }

    static func quoted(_ text: String) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return "\"" + escaped + "\""
    }
}

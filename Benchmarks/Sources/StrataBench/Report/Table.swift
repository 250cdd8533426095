import Foundation

/// The final markdown table: figure, Strata, GRDB, and the ratio oriented so that higher is
/// always better for Strata (Strata/GRDB for throughput, GRDB/Strata for latency, time, memory).
final class Table {
    enum Better { case higher, lower }

    private var rows: [[String]] = []

    /// A row for figure `key` of `compared` (GRDB's figure `grdbKey` when it differs).
    func add(_ label: String, _ compared: Compared, _ key: String, grdbKey: String? = nil, unit: String,
             better: Better) {
        let strata = compared.strata[key].number
        let grdb = compared.grdb[grdbKey ?? key].number
        var ratio = "—"
        if let strata, let grdb, strata > 0, grdb > 0 {
            ratio = String(format: "%.2f×", better == .higher ? strata / grdb : grdb / strata)
        }
        let strataCell = strata.map(Self.format) ?? (compared.strata.note.map(Self.shortNote) ?? "—")
        let grdbCell = grdb.map(Self.format) ?? (compared.grdb.note.map(Self.shortNote) ?? "—")
        rows.append(["\(label) (\(unit))\(Self.durability(compared.pairing))", strataCell, grdbCell, ratio])
    }

    /// A row whose cells are given (texts, or figures that have no meaningful ratio).
    func add(_ label: String, strata: String, grdb: String, ratio: String = "—") {
        rows.append([label, strata, grdb, ratio])
    }

    func markdown(title: String) -> String {
        var lines = [title, "", "| figure | Strata | GRDB | ratio (higher is better for Strata) |",
                     "|---|---:|---:|---:|"]
        lines += rows.map { "| " + $0.joined(separator: " | ") + " |" }
        return lines.joined(separator: "\n")
    }

    static func durability(_ pairing: Pairing?) -> String {
        switch pairing {
        case .normal: " — Strata .normal vs GRDB WAL+NORMAL"
        case .full: " — Strata .full vs GRDB WAL+FULL"
        case nil: ""
        }
    }

    static func format(_ value: Double) -> String {
        if value >= 1000 {
            let formatter = NumberFormatter()
            formatter.numberStyle = .decimal
            formatter.maximumFractionDigits = 0
            return formatter.string(from: NSNumber(value: value.rounded())) ?? String(Int(value))
        }
        return String(format: value >= 100 ? "%.0f" : value >= 10 ? "%.1f" : "%.2f", value)
    }

    /// The table cell for a figure a store does not have: the first clause of its note.
    static func shortNote(_ note: String) -> String {
        String(note.split(separator: ";").first ?? Substring(note))
    }
}

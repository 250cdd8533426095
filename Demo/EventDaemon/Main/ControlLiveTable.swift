import Foundation
import StrataEventd
import StrataTerminal

/// A live query's result kept from its initial pages and change sets, drawn as a table that
/// replaces itself on the terminal.
final class LiveTable {
    private let query: String
    private var objects: [[String: Any]] = []
    private var updates = 0
    private static let columns = ["id", "type", "source", "time", "payload"]

    init(query: String) {
        self.query = query
    }

    /// Applies an `initial` page or an `update` (deletions at old indices, then insertions and
    /// modifications at new ones).
    func apply(_ message: [String: Any]) {
        if let initial = message["initial"] as? [String: Any] {
            if initial["page"] as? Int == 0 { objects = [] }
            objects += initial["objects"] as? [[String: Any]] ?? []
        } else if let update = message["update"] as? [String: Any] {
            updates += 1
            for index in (update["deletions"] as? [Int] ?? []).sorted(by: >) where objects.indices.contains(index) {
                objects.remove(at: index)
            }
            let inserted = update["inserted"] as? [[String: Any]] ?? []
            for (index, object) in zip(update["insertions"] as? [Int] ?? [], inserted) {
                objects.insert(object, at: min(index, objects.count))
            }
            let modified = update["modified"] as? [[String: Any]] ?? []
            let modifications = update["modifications"] as? [Int] ?? []
            // The modified objects come at their new indices; find them by id.
            for object in modified.prefix(modifications.count) {
                if let id = object["id"] as? String, let index = objects.firstIndex(where: { $0["id"] as? String == id }) {
                    objects[index] = object
                }
            }
        }
    }

    /// Clears the screen and draws the newest rows that fit it.
    func draw() {
        let height = max(5, (Int(ProcessInfo.processInfo.environment["LINES"] ?? "") ?? 24) - 4)
        let rows = objects.prefix(height).map { object in
            Self.columns.map { column -> String in
                guard let value = object[column] else { return "" }
                if let text = value as? String { return text }
                return (try? JSONSerialization.data(withJSONObject: value, options: [.fragmentsAllowed, .sortedKeys]))
                    .map { String(decoding: $0, as: UTF8.self) } ?? "\(value)"
            }
        }
        var screen = "\u{1B}[H\u{1B}[2J"
        screen += "\(query): \(objects.count) event\(objects.count == 1 ? "" : "s"), \(updates) update\(updates == 1 ? "" : "s")\n"
        screen += TableRenderer(columns: Self.columns, width: Terminal.width).lines(rows).joined(separator: "\n") + "\n"
        if objects.count > rows.count { screen += "(\(objects.count - rows.count) more)\n" }
        Terminal.write(screen)
    }
}

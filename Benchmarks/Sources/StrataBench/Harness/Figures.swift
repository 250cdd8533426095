/// One figure of a JSON line.
enum Figure {
    case number(Double)
    case integer(Int)
    case text(String)
    /// Not measured for this store (printed as `null`; the line's `note` says why).
    case missing

    var number: Double? {
        switch self {
        case .number(let value): value
        case .integer(let value): Double(value)
        default: nil
        }
    }

    /// The figure as a table cell.
    var cell: String {
        switch self {
        case .number(let value): Table.format(value)
        case .integer(let value): String(value)
        case .text(let value): value
        case .missing: "—"
        }
    }
}

/// The figures one store produced for one workload (one repetition, or their aggregate), in
/// print order, with the durability actually in force.
struct Figures {
    var sync: String
    var values: [(key: String, value: Figure)]
    var note: String?

    init(sync: String, _ values: KeyValuePairs<String, Figure>, note: String? = nil) {
        self.sync = sync
        self.values = values.map { ($0.key, $0.value) }
        self.note = note
    }

    subscript(key: String) -> Figure {
        values.first { $0.key == key }?.value ?? .missing
    }

    /// The same field names with every figure missing, for a store that cannot run the workload.
    func missing(sync: String, note: String) -> Figures {
        var copy = self
        copy.sync = sync
        copy.values = values.map { ($0.key, .missing) }
        copy.note = note
        return copy
    }
}

/// Comma-separated values as RFC 4180 writes them: a field with a comma, a quote or a line
/// break is quoted, its quotes doubled; lines end with CRLF.
enum CSVWriter {
    /// One record.
    static func line(_ fields: [String]) -> String {
        fields.map(quoted).joined(separator: ",") + "\r\n"
    }

    private static func quoted(_ field: String) -> String {
        guard field.contains(where: { $0 == "," || $0 == "\"" || $0.isNewline }) else { return field }
        return "\"" + field.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}

import Foundation
import Yams

/// Why a configuration was refused, in one line: the setting (`maxBatch`,
/// `counters.windowSeconds`, `alerts[1].name`; nil for the file as a whole) and what is wrong.
public struct DaemonConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The configuration file, when it was read from one.
    public var file: String?
    /// The setting's path, or nil when the problem is the document as a whole.
    public let key: String?
    /// What is wrong, one line.
    public let message: String

    /// Line breaks and other control characters in `key` and `message` (a setting or an alert
    /// name can hold them) are written as escapes (`\n`, `\u{1B}`), so the error stays one line.
    public init(file: String? = nil, key: String?, _ message: String) {
        self.file = file
        self.key = key.map(escapingControlCharacters)
        self.message = escapingControlCharacters(message)
    }

    /// `"<file>: <key>: <message>"`, leaving out what is not known.
    public var description: String { [file, key, message].compactMap { $0 }.joined(separator: ": ") }
}

extension DaemonConfig {
    /// The largest configuration file read, in bytes.
    public static let maximumFileBytes = 1 << 20

    /// Reads and validates a YAML configuration; an empty document (or only comments) means the
    /// defaults.
    ///
    /// - Throws: ``DaemonConfigError`` for YAML that does not parse, a document that is not a
    ///   mapping, an unknown setting, a value of the wrong type, or a value ``validate()`` refuses.
    public static func load(yaml text: String) throws(DaemonConfigError) -> DaemonConfig {
        let config: DaemonConfig
        do {
            guard let node = try Yams.compose(yaml: text) else { return DaemonConfig() }
            guard node.mapping != nil else {
                throw DaemonConfigError(key: nil, "the configuration must be a YAML mapping of settings")
            }
            config = try YAMLDecoder().decode(DaemonConfig.self, from: node)
        } catch let error as DaemonConfigError {
            throw error
        } catch let error as DecodingError {
            throw Self.describe(error)
        } catch let error as YamlError {
            throw DaemonConfigError(key: nil, "invalid YAML: \(Self.describe(error))")
        } catch {
            throw DaemonConfigError(key: nil, oneLine("\(error)"))
        }
        try config.validate()
        return config
    }

    /// Reads and validates the configuration file at `path`.
    ///
    /// - Throws: ``DaemonConfigError`` naming the file when it is missing, unreadable, a
    ///   directory, larger than ``maximumFileBytes`` or not UTF-8; else as ``load(yaml:)``.
    public static func load(path: String) throws(DaemonConfigError) -> DaemonConfig {
        func refuse(_ reason: String) -> DaemonConfigError { DaemonConfigError(file: path, key: nil, "cannot read it: \(reason)") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else { throw refuse("no such file") }
        guard !isDirectory.boolValue else { throw refuse("it is a directory") }
        guard let handle = FileHandle(forReadingAtPath: path) else { throw refuse("permission denied") }
        defer { try? handle.close() }
        let data: Data
        do {
            data = try handle.read(upToCount: maximumFileBytes + 1) ?? Data()
        } catch {
            throw refuse(oneLine("\(error)"))
        }
        guard data.count <= maximumFileBytes else { throw refuse("larger than \(maximumFileBytes) bytes") }
        guard let text = String(data: data, encoding: .utf8) else { throw refuse("not UTF-8 text") }
        do {
            return try load(yaml: text)
        } catch {
            var located = error
            located.file = path
            throw located
        }
    }

    private static func describe(_ error: DecodingError) -> DaemonConfigError {
        switch error {
        case .typeMismatch(let type, let context):
            return DaemonConfigError(key: path(context.codingPath), "expected \(expectation(type))")
        case .valueNotFound(let type, let context):
            return DaemonConfigError(key: path(context.codingPath), "expected \(expectation(type))")
        case .keyNotFound(let key, let context):
            return DaemonConfigError(key: path(context.codingPath + [key]), "missing")
        case .dataCorrupted(let context):
            return DaemonConfigError(key: path(context.codingPath), oneLine(context.debugDescription))
        @unknown default:
            return DaemonConfigError(key: nil, oneLine("\(error)"))
        }
    }

    private static func expectation(_ type: Any.Type) -> String {
        switch type {
        case is Int.Type: "an integer"
        case is String.Type: "a string"
        case is [String].Type: "a list of strings"
        case is [AlertRule].Type: "a list of rules (name, query)"
        default: "a mapping"
        }
    }

    private static func describe(_ error: YamlError) -> String {
        switch error {
        case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
             .composer(_, let problem, let mark, _):
            "\(problem) at line \(mark.line), column \(mark.column)"
        case .reader(let problem, let offset, _, _):
            "\(problem)\(offset.map { " at offset \($0)" } ?? "")"
        default:
            oneLine("\(error)")
        }
    }

    /// `counters.windowSeconds`, `alerts[1].name`.
    static func path(_ codingPath: [any CodingKey]) -> String? {
        guard !codingPath.isEmpty else { return nil }
        var text = ""
        for key in codingPath {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                text += text.isEmpty ? key.stringValue : ".\(key.stringValue)"
            }
        }
        return text
    }
}

/// Any key of a YAML mapping, to find the ones a settings type does not know.
struct ConfigKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }

    /// Throws ``DaemonConfigError`` for the first key of the mapping `decoder` reads that
    /// `known` does not name (so a misspelt limit is an error, not a silent default).
    static func refuseUnknown<Known: CodingKey>(in decoder: any Decoder, known: Known.Type) throws {
        let container = try decoder.container(keyedBy: ConfigKey.self)
        for key in container.allKeys.sorted(by: { $0.stringValue < $1.stringValue })
        where Known(stringValue: key.stringValue) == nil {
            throw DaemonConfigError(key: DaemonConfig.path(decoder.codingPath + [key]), "unknown setting")
        }
    }
}

/// `text` with its line breaks and runs of whitespace collapsed to single spaces.
func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
}

/// `text` with every control, format, line- or paragraph-separator scalar escaped.
func escapingControlCharacters(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator:
            escaped += scalar.escaped(asASCII: true)
        default:
            escaped.unicodeScalars.append(scalar)
        }
    }
    return escaped
}

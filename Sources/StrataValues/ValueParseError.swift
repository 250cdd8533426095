/// The error thrown when text cannot be read as a value type such as ``Decimal128`` or ``ObjectId``.
///
/// It carries the rejected input and a sentence saying what is wrong with it, so that the
/// message can be shown as-is or bridged into `Realm.Error` by the layer that catches it.
///
/// ```swift
/// do {
///     let id = try ObjectId(string: text)
/// } catch let error as ValueParseError {
///     print(error.message)   // "an ObjectId string must be 24 hexadecimal digits; got 3 characters"
/// }
/// ```
public struct ValueParseError: Error, CustomStringConvertible, Sendable {
    /// The text that could not be parsed, exactly as given.
    public let input: String
    /// A sentence that says why the text was rejected.
    public let message: String

    /// Creates an error for the given input and message.
    ///
    /// - Parameters:
    ///   - input: The rejected text.
    ///   - message: Why it was rejected, as a sentence fragment without a trailing period.
    public init(input: String, message: String) {
        self.input = input
        self.message = message
    }

    /// The message followed by the quoted input, for logs and test failures.
    ///
    /// Inputs longer than 64 characters are shortened with an ellipsis.
    public var description: String {
        let shown = input.count > 64 ? String(input.prefix(64)) + "…" : input
        return "\(message): \"\(shown)\""
    }
}

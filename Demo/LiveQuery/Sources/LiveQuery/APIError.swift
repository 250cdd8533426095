import Hummingbird

/// An error a client caused, answered with a 4xx status and a JSON body
/// `{"error": {"code": "…", "message": "…"}}`.
public struct APIError: HTTPResponseError, Equatable, CustomStringConvertible {
    /// What went wrong; each code has its HTTP status.
    public struct Code: RawRepresentable, Hashable, Sendable, Codable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// A body field is missing, of the wrong type, or out of its limits (400).
        public static let invalidInput = Code(rawValue: "invalidInput")
        /// The `filter` or `sort` parameter is not a valid query (400).
        public static let invalidQuery = Code(rawValue: "invalidQuery")
        /// The path's id is not an object id (24 hexadecimal digits) (400).
        public static let invalidID = Code(rawValue: "invalidID")
        /// No to-do item has the path's id (404).
        public static let notFound = Code(rawValue: "notFound")
    }

    /// What went wrong.
    public var code: Code
    /// A sentence for the client.
    public var message: String

    /// Creates an error with `code` and `message`.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// 404 for `notFound`, 400 for the others.
    public var status: HTTPResponse.Status { code == .notFound ? .notFound : .badRequest }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The error's JSON body, as sent to clients.
    public struct Body: Codable, Sendable {
        public struct Detail: Codable, Sendable {
            public var code: Code
            public var message: String
        }
        public var error: Detail
    }

    /// Answers with ``status`` and the JSON ``Body``.
    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var response = try context.responseEncoder.encode(Body(error: .init(code: code, message: message)),
                                                          from: request, context: context)
        response.status = status
        return response
    }
}

extension APIError {
    /// The body-decoding failure Hummingbird reports (`HTTPError` 400) as `invalidInput`.
    static func invalidBody(_ error: HTTPError) -> APIError {
        APIError(.invalidInput, error.body ?? "the body is not the expected JSON")
    }
}

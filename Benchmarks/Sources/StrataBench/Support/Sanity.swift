import Foundation

/// A sanity check failed: the stores do not hold the workload's data, so no figure is valid.
struct SanityFailure: Error, CustomStringConvertible {
    let description: String
}

/// Fails loudly unless `actual == expected`.
func expect<T: Equatable>(_ actual: T, _ expected: T, _ what: @autoclosure () -> String) throws {
    guard actual == expected else {
        throw SanityFailure(description: "SANITY CHECK FAILED: \(what()): got \(actual), expected \(expected)")
    }
}

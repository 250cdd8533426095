// A libFuzzer target for the Realm Query Language parser.
//
//   swift build --scratch-path .build-fuzz -c debug --sanitize=fuzzer --product strata-query-fuzz
//   mkdir -p .build-fuzz/corpus
//   SWIFT_BACKTRACE=enable=no ./.build-fuzz/debug/strata-query-fuzz -max_total_time=120 \
//       .build-fuzz/corpus Tests/StrataQueryTests/FuzzCorpus
//
// libFuzzer supplies `main` and writes new inputs to the first directory; the seed queries are
// the dot-files in Tests/StrataQueryTests/FuzzCorpus (dot-files, so SwiftPM does not report them
// as unhandled files of the test target). Without `--sanitize=fuzzer` the program instead runs
// each file named on its command line once, to replay a crash.

import Foundation
import StrataFuzzSupport
import StrataEngine
import StrataQuery

/// Parses `size` bytes (decoded as UTF-8, invalid sequences replaced); errors are expected and
/// ignored, anything else (a trap, a hang, a bad error position) is a finding.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        // `$0`…`$3` arguments, or one argument of the right kind per format specifier (`%@`, `%K`,
        // `%d`, …), so that format-string inputs reach the parser past the argument check.
        _ = try RQLParser.parse(text, arguments: FormatArgumentSamples.arguments(for: text))
    } catch {
        // A thrown error must point into the text (or just past its end).
        precondition((0...text.unicodeScalars.count).contains(error.position), "error position out of range: \(error)")
    }
    return 0
}

/// The entry point of a build without `--sanitize=fuzzer` (SwiftPM links an executable's `main`
/// to `<module>_main`): replays each file named on the command line.
@_cdecl("strata_query_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.run(CommandLine.arguments.dropFirst(), through: fuzz)
}

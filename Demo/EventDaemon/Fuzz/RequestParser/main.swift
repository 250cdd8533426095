// A libFuzzer target for strata-eventd's request parser (RequestParser.parse).
//
//   swift build --scratch-path .build-fuzz --sanitize=fuzzer --product strata-eventd-request-fuzz
//   mkdir -p .build-fuzz/corpus-request
//   SWIFT_BACKTRACE=enable=no ./.build-fuzz/debug/strata-eventd-request-fuzz -max_total_time=120 \
//       .build-fuzz/corpus-request Demo/EventDaemon/Fuzz/RequestParser/Corpus
//
// libFuzzer supplies `main` and writes new inputs to the first directory; the seed lines are the
// dot-files in Corpus (dot-files, so SwiftPM does not report them as unhandled files). Without
// `--sanitize=fuzzer` the program instead runs each file named on its command line once, to
// replay a crash.

import Foundation
import StrataFuzzSupport
import StrataEventd

private let parser = RequestParser(maxDepth: 32, knownTypes: nil)

/// Parses `size` bytes as one request line; a rejection is expected, a trap is a finding. What
/// is accepted must be what the store takes: a supported time, and a payload that writes back
/// to JSON that parses to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    _ = RequestParser.looksLikeHTTP(line)
    guard case .event(let event)? = try? parser.parse(line) else { return 0 }
    precondition(RequestParser.supportedTimes.contains(event.time.timeIntervalSince1970), "time out of range: \(event.time)")
    let again = #"{"id":"x","type":"t","source":"s","time":0,"payload":\#(event.payload.text)}"#
    guard case .event(let reparsed)? = try? parser.parse(Array(again.utf8)) else {
        preconditionFailure("the payload's JSON text does not parse: \(event.payload.text)")
    }
    precondition(reparsed.payload == event.payload, "the payload changed on a round trip: \(event.payload.text)")
    return 0
}

/// The entry point of a build without `--sanitize=fuzzer` (SwiftPM links an executable's `main`
/// to `<module>_main`): replays each file named on the command line.
@_cdecl("strata_eventd_request_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.run(CommandLine.arguments.dropFirst(), through: fuzz)
}

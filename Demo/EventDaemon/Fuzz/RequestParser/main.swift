// A libFuzzer target for strata-eventd's request parser (RequestParser.parse).
//
//   # from the repository's root:
//   swift build --package-path Demo --scratch-path .build-fuzz-demo --sanitize=fuzzer \
//       --product strata-eventd-request-fuzz
//   mkdir -p .build-fuzz/corpus-request
//   SWIFT_BACKTRACE=enable=no ./.build-fuzz-demo/debug/strata-eventd-request-fuzz -max_total_time=120 \
//       .build-fuzz/corpus-request Demo/EventDaemon/Fuzz/RequestParser/Corpus
//
// libFuzzer supplies `main` and writes new inputs to the first directory; the seed lines are the
// dot-files in Corpus (dot-files, so SwiftPM does not report them as unhandled files). Without
// `--sanitize=fuzzer` the program instead runs each file named on its command line once, to
// replay a crash.

import Foundation
import Strata
import StrataFuzzSupport
import StrataEventd

private let parser = RequestParser(maxDepth: 32, knownTypes: nil)

/// A small store the made-up subscriptions run against: events with nested payloads. Used on the
/// fuzzer's one thread only.
nonisolated(unsafe) private let realm: Realm = {
    let configuration = Realm.Configuration(inMemoryIdentifier: "request-fuzz", objectTypes: daemonObjectTypes)
    let realm = try! Realm(configuration: configuration)
    try! realm.write {
        for (index, payload) in [#"{"amount":5,"tags":["a","b"],"user":{"name":"ada"}}"#, #"[1,2.5,null,"x"]"#, "null"]
            .enumerated() {
            guard case .event(let event) = try! parser.parse(Array(
                #"{"id":"e\#(index)","type":"t\#(index)","source":"s","time":\#(index),"payload":\#(payload)}"#.utf8))
            else { continue }
            realm.add(StoredEvent(value: ["id": event.id, "type": event.type, "source": event.source, "time": event.time,
                                          "payload": event.payload.realmValue, "receivedAt": event.time]))
        }
    }
    return realm
}()

/// Parses `size` bytes as one request line; a rejection is expected, a trap is a finding. What
/// is accepted must be what the store takes: a supported time, and a payload that writes back
/// to JSON that parses to the same value. A `subscribe` that passes the daemon's checks must run
/// and register without trapping (the checks exist so that network input never reaches an API
/// that traps on a programmer's mistake).
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = UnsafeBufferPointer(start: data, count: size)
    _ = RequestParser.looksLikeHTTP(line)
    let request = try? parser.parse(line)
    if case .subscribe(let query, let sort, let ascending, let keyPaths)? = request {
        subscribe(query: query, sort: sort, ascending: ascending, keyPaths: keyPaths)
    }
    guard case .event(let event)? = request else { return 0 }
    precondition(RequestParser.supportedTimes.contains(event.time.timeIntervalSince1970), "time out of range: \(event.time)")
    let again = #"{"id":"x","type":"t","source":"s","time":0,"payload":\#(event.payload.text)}"#
    guard case .event(let reparsed)? = try? parser.parse(Array(again.utf8)) else {
        preconditionFailure("the payload's JSON text does not parse: \(event.payload.text)")
    }
    precondition(reparsed.payload == event.payload, "the payload changed on a round trip: \(event.payload.text)")
    return 0
}

/// Runs a subscription's checks; when they pass, reads the results and registers (and drops) an
/// observer with the key paths through the API that traps on a bad key path.
private func subscribe(query: String, sort: String?, ascending: Bool, keyPaths: [String]?) {
    guard let results = try? SubscriptionCheck.check(in: realm, query: query, sort: sort, ascending: ascending,
                                                     keyPaths: keyPaths, limits: DaemonLimits()) else { return }
    for event in results.prefix(3) { _ = event.customEventRepresentation() }
    // The trapping form on purpose: the checks must leave nothing for it to trap on.
    let token = results.observe(keyPaths: keyPaths) { _ in }
    token.invalidate()
}

/// The entry point of a build without `--sanitize=fuzzer` (SwiftPM links an executable's `main`
/// to `<module>_main`): replays each file named on the command line.
@_cdecl("strata_eventd_request_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.run(CommandLine.arguments.dropFirst(), through: fuzz)
}

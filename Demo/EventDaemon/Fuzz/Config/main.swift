// A libFuzzer target for strata-eventd's configuration loader (DaemonConfig.load(yaml:)).
//
//   # from the repository's root:
//   swift build --package-path Demo --scratch-path .build-fuzz-demo --sanitize=fuzzer \
//       --product strata-eventd-config-fuzz
//   mkdir -p .build-fuzz/corpus-config
//   SWIFT_BACKTRACE=enable=no ./.build-fuzz-demo/debug/strata-eventd-config-fuzz -max_total_time=120 \
//       .build-fuzz/corpus-config Demo/EventDaemon/Fuzz/Config/Corpus
//
// The seed files are the dot-files in Corpus. Without `--sanitize=fuzzer` the program runs each
// file named on its command line once, to replay a crash.

import Foundation
import StrataFuzzSupport
import StrataEventd
import Yams

/// Loads `size` bytes (decoded as UTF-8, invalid sequences replaced) as a configuration; an
/// error is expected, a trap is a finding. A configuration that loads is valid, and written
/// back as YAML it loads to the same value.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let text = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    let config: DaemonConfig
    do {
        config = try DaemonConfig.load(yaml: text)
    } catch {
        precondition(!error.description.contains("\n"), "a configuration error of more than one line: \(error)")
        return 0
    }
    do {
        try config.validate()
        let written = try YAMLEncoder().encode(config)
        let reloaded = try DaemonConfig.load(yaml: written)
        precondition(reloaded == config, "the configuration changed on a round trip:\n\(written)")
    } catch {
        preconditionFailure("a loaded configuration does not survive a round trip: \(error)")
    }
    return 0
}

/// The entry point of a build without `--sanitize=fuzzer` (SwiftPM links an executable's `main`
/// to `<module>_main`): replays each file named on the command line.
@_cdecl("strata_eventd_config_fuzz_main")
public func replayMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) -> CInt {
    FuzzReplay.run(CommandLine.arguments.dropFirst(), through: fuzz)
}

import Foundation

/// The replay mode every libFuzzer target of Strata shares: a build without
/// `--sanitize=fuzzer` links the target's `<module>_main` instead of libFuzzer's `main`, and that
/// entry point runs each file named on the command line through the target's fuzz function once,
/// to reproduce a crash the fuzzer saved.
public enum FuzzReplay {
    /// Runs every file in `paths` through `fuzz` (libFuzzer's `LLVMFuzzerTestOneInput` shape).
    ///
    /// - Returns: 0, or 1 when a file cannot be read.
    public static func run(
        _ paths: some Sequence<String>, through fuzz: (UnsafePointer<UInt8>, Int) -> CInt
    ) -> CInt {
        for path in paths {
            guard let contents = FileManager.default.contents(atPath: path) else {
                print("cannot read \(path)")
                return 1
            }
            let bytes = [UInt8](contents) + [0] // Never empty, so the buffer has a base address.
            _ = bytes.withUnsafeBufferPointer { fuzz($0.baseAddress!, bytes.count - 1) }
            print("ran without trapping: \(path)")
        }
        return 0
    }
}

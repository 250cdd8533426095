import Foundation

/// A fresh directory per repetition, removed afterwards.
struct Scratch {
    let path: String

    init() {
        var template = Array((NSTemporaryDirectory() + "/strata-bench-XXXXXX").utf8CString)
        path = String(cString: mkdtemp(&template)!)
    }

    func file(_ name: String) -> String { path + "/" + name }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

import Foundation
import Hummingbird
import LiveQuery
import NIOPosix
import Strata

/// `live-query-server [--host H] [--port P] [--file PATH]`: serves the to-do API and its live
/// queries on http://H:P (127.0.0.1:8080 by default), storing the items in PATH
/// (live-query.realm in the current directory by default).
let arguments = CommandLine.arguments.dropFirst()
func argument(_ name: String) -> String? {
    guard let index = arguments.firstIndex(of: name), arguments.index(after: index) < arguments.endIndex else {
        return nil
    }
    return arguments[arguments.index(after: index)]
}
let host = argument("--host") ?? "127.0.0.1"
guard let port = Int(argument("--port") ?? "8080") else {
    FileHandle.standardError.write(Data("--port takes a number\n".utf8))
    exit(64)
}
let file = argument("--file") ?? "live-query.realm"

// The Realm's loop is one of its own: a commit's sync never stalls the HTTP connections' loops.
let storeLoops = MultiThreadedEventLoopGroup(numberOfThreads: 1)
var realmConfiguration = Realm.Configuration()
realmConfiguration.fileURL = URL(fileURLWithPath: file)
let store = try await TodoStore.open(configuration: realmConfiguration, on: storeLoops.next())
let app = buildApplication(store: store, configuration: .init(address: .hostname(host, port: port)))
try await app.runService()
try await storeLoops.shutdownGracefully()

import Foundation
import Strata

/// The model the StrataNIO tests write and observe.
final class LoopNote: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var text = ""
}

/// An in-memory configuration of its own for each test (`name` keeps failures readable).
func loopConfiguration(_ name: String) -> Realm.Configuration {
    Realm.Configuration(inMemoryIdentifier: "nio-\(name)-\(UUID())", objectTypes: [LoopNote.self])
}

/// A frozen value that may cross isolation domains in Swift 6: frozen objects and collections
/// are safe to read from any thread at once, but their types cannot say so (a live value of
/// the same type is confined), so this wrapper carries the promise.
///
/// ```swift
/// let dogs = Frozen(realm.objects(Dog.self))      // freezes the results
/// Task.detached { print(dogs.value.count) }
/// ```
public struct Frozen<Value: ThreadConfined>: @unchecked Sendable {
    // Safety: `value` is frozen (the initializer makes sure): frozen Realms never change after
    // they are made, skip the row caches, and evaluate queries once under a lock.
    /// The frozen value.
    public let value: Value

    /// Wraps `value`, freezing it first when it is live (see ``ThreadConfined/freeze()``).
    public init(_ value: Value) {
        self.value = value.isFrozen ? value : value.freeze()
    }
}

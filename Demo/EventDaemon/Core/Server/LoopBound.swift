import Strata

/// A reference that may travel to other threads but is only dereferenced on its loop's thread
/// (checked), as swift-nio's `NIOLoopBound`.
struct WeakLoopBound<Value: AnyObject>: @unchecked Sendable {
    // Safety: `value` is read only through `withValue`, which runs on the loop thread (it
    // preconditions so); the box itself is immutable.
    private weak var value: Value?
    let loop: LibUVEventLoop

    init(_ value: Value, loop: LibUVEventLoop) {
        loop.preconditionInEventLoop()
        self.value = value
        self.loop = loop
    }

    /// Hops to the loop and runs `body` with the value, if it still exists.
    func execute(_ body: @escaping @Sendable (Value) -> Void) {
        let box = self
        loop.execute {
            box.loop.preconditionInEventLoop()
            if let value = box.value { body(value) }
        }
    }
}

/// An event loop is a serial executor: an actor whose `unownedExecutor` is the loop runs every
/// job on the loop thread, so it can own a Realm opened there and iterate its async sequences.
///
/// ```swift
/// actor DogWatcher {
///     let loop: LibUVEventLoop
///     nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
///
///     init(loop: LibUVEventLoop) { self.loop = loop }
///
///     func watch(_ configuration: Realm.Configuration) async throws {
///         let realm = try Realm(configuration: configuration)   // on the loop thread
///         for await change in realm.objects(Dog.self).changes { print(change) }
///     }
/// }
/// ```
///
/// It is also a task executor: `Task(executorPreference: loop) { … }` starts and runs a task on
/// the loop thread without a thread of the cooperative pool.
extension LibUVEventLoop: SerialExecutor, TaskExecutor {
    /// Runs `job` on the loop thread, after the closures already queued.
    ///
    /// Traps when the loop was shut down: the job could never run, and the task awaiting it
    /// would hang forever. Stop the loop only after its actors' work is done.
    public func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let serial = asUnownedSerialExecutor()
        let task = asUnownedTaskExecutor()
        let accepted = execute { job.runSynchronously(isolatedTo: serial, taskExecutor: task) }
        precondition(accepted, "a job was enqueued on a LibUVEventLoop that was shut down; stop the loop after its actors finish")
    }

    /// This loop as the executor of an actor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// This loop as a task's preferred executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor {
        UnownedTaskExecutor(ordinary: self)
    }

    /// Traps unless called on the loop thread (used by `assumeIsolated`).
    public func checkIsolated() {
        preconditionInEventLoop()
    }
}

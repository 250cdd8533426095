/// Identifies an asynchronous write (Realm Swift's `AsyncTransactionId`).
public typealias AsyncTransactionId = UInt32

/// One queued asynchronous write.
struct AsyncWrite {
    let id: AsyncTransactionId
    /// Runs inside the write transaction; `writeAsync` commits after it, `beginAsyncWrite`
    /// expects it to call `commitAsyncWrite`.
    let block: () -> Void
    let autoCommit: Bool
    let onComplete: ((Swift.Error?) -> Void)?
}

/// The asynchronous writes of one Realm, run in order on its scheduler.
final class AsyncWriteQueue {
    var pending: [AsyncWrite] = []
    var nextID: AsyncTransactionId = 1
    /// Whether a drain is scheduled or running.
    var isDraining = false
    /// The write whose block is running (`beginAsyncWrite`), until it commits or returns.
    var current: AsyncTransactionId?
}

extension Realm {
    /// Queues `block` to run in a write transaction on this Realm's scheduler, committed when it
    /// returns, as Realm Swift's `writeAsync(_:onComplete:)`. Writes queued on one Realm run in
    /// order; `onComplete` runs on the scheduler once the commit is durable, with its error if
    /// any, before the next queued write starts.
    ///
    /// The write waits for the write lock and for durability on the scheduler's thread (group
    /// commit shares the sync with concurrent writers); queueing never blocks the caller.
    /// Traps on a Realm without a scheduler, and on a frozen Realm.
    ///
    /// - Returns: an id for ``cancelAsyncWrite(_:)``.
    @discardableResult
    public func writeAsync(_ block: @escaping () -> Void,
                           onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        enqueueAsyncWrite { id in AsyncWrite(id: id, block: block, autoCommit: true, onComplete: onComplete) }
    }

    /// Queues `asyncWriteBlock` to run in a write transaction on this Realm's scheduler, as Realm
    /// Swift's `beginAsyncWrite`: the block calls ``commitAsyncWrite(allowGrouping:_:)`` (or
    /// `commitWrite()` / `cancelWrite()`); a block that returns with the write open has it
    /// cancelled.
    @discardableResult
    public func beginAsyncWrite(_ asyncWriteBlock: @escaping () -> Void) -> AsyncTransactionId {
        enqueueAsyncWrite { id in AsyncWrite(id: id, block: asyncWriteBlock, autoCommit: false, onComplete: nil) }
    }

    /// Commits the write transaction begun by ``beginAsyncWrite(_:)``; `onComplete` runs right
    /// after the commit is durable, with its error if any, before the next queued write. `allowGrouping` is accepted for
    /// Realm Swift compatibility: group commit batches concurrent commits' syncs regardless.
    ///
    /// Traps outside a write transaction.
    @discardableResult
    public func commitAsyncWrite(allowGrouping: Bool = false,
                                 _ onComplete: ((Swift.Error?) -> Void)? = nil) -> AsyncTransactionId {
        precondition(isInWriteTransaction, "Can't commit a non-existing write transaction")
        let id = asyncWrites.current ?? 0
        var failure: Swift.Error?
        do { try commitWrite() } catch { failure = error }
        onComplete?(failure)
        return id
    }

    /// Removes a queued asynchronous write that has not started; does nothing for one that
    /// started or finished.
    ///
    /// - Throws: never today; the signature matches Realm Swift's.
    public func cancelAsyncWrite(_ asyncTransactionId: AsyncTransactionId) throws {
        verifyThread()
        asyncWrites.pending.removeAll { $0.id == asyncTransactionId }
    }

    /// Whether asynchronous writes are queued or running.
    public var isPerformingAsynchronousWriteOperations: Bool {
        !asyncWrites.pending.isEmpty || asyncWrites.current != nil
    }

    /// Runs `block` in a write transaction from Swift concurrency, as Realm Swift's
    /// `asyncWrite`: call it from the actor (or task) that owns the Realm, for example the actor
    /// of `Realm(configuration:actor:)` (any actor) or one whose executor is the Realm's `LibUVEventLoop`.
    ///
    /// Called from an actor, while another writer holds the write lock the task suspends, so the
    /// actor and its thread stay free (a task that blocked would hold one of the few threads of Swift's cooperative
    /// pool). Cancelling the task while it waits throws `CancellationError` without running
    /// `block`, as in Realm. `block` and the commit run on the caller's executor; the commit waits
    /// for durability there without suspending. A task that waits does not queue behind threads
    /// waiting in ``write(withoutNotifying:_:)``: under a steady stream of those it may wait
    /// longer than they do. Called from outside any actor, it waits without suspending, as
    /// ``write(withoutNotifying:_:)`` does (the task could otherwise resume on another thread).
    ///
    /// - Returns: what `block` returns.
    /// - Throws: `CancellationError` when the task is cancelled before the write begins; what
    ///   `block` throws (the write is cancelled); or the ``Realm/Error`` of a failed write or
    ///   commit.
    @discardableResult
    public func asyncWrite<Result>(_ block: () throws -> Result,
                                   isolation: isolated (any Actor)? = #isolation) async throws -> Result {
        try Task.checkCancellation()
        // Without an actor to come back to, the task could resume on another thread than the
        // Realm's: wait for the lock there without suspending, as `write` does.
        guard isolation != nil else { return try write(block) }
        verifyCanBeginWrite()
        do {
            try await store.acquireWriteGateSuspending()
        } catch let cancellation as CancellationError {
            throw cancellation
        } catch {
            throw Realm.Error.wrap(error)
        }
        // Another task of the actor may have begun a write on this Realm while this one waited
        // (one that failed holds no lock): the same programmer error as a nested write.
        if isInWriteTransaction {
            store.releaseWriteGate()
            preconditionFailure("The Realm is already in a write transaction")
        }
        var began = false
        openWriteTransaction {
            began = true
            return try store.beginWriteHoldingGate()
        }
        // The newest version could not be pinned, so no transaction took the lock over.
        if !began { store.releaseWriteGate() }
        return try completeWrite(withoutNotifying: [], block)
    }

    // MARK: - The queue

    private var asyncWrites: AsyncWriteQueue { state.asyncWrites }

    private func enqueueAsyncWrite(_ make: (AsyncTransactionId) -> AsyncWrite) -> AsyncTransactionId {
        verifyThread()
        precondition(!isFrozen, "Can't perform transactions on a frozen Realm")
        precondition(state.scheduler != nil, "Can only perform asynchronous writes on a Realm with a scheduler: open it "
                     + "on a LibUVEventLoop's thread, the main thread, with Realm(configuration:queue:), Realm(configuration:scheduler:) or "
                     + "Realm(configuration:actor:)")
        let queue = asyncWrites
        let id = queue.nextID
        queue.nextID &+= 1
        queue.pending.append(make(id))
        if !queue.isDraining {
            queue.isDraining = true
            scheduleOnOwnScheduler { [self] in drainAsyncWrites() }
        }
        return id
    }

    /// Runs the queued writes one by one, each in its own transaction.
    private func drainAsyncWrites() {
        let queue = asyncWrites
        while !queue.pending.isEmpty, !isInWriteTransaction {
            let write = queue.pending.removeFirst()
            queue.current = write.id
            beginWrite()
            write.block()
            if isInWriteTransaction {
                if write.autoCommit {
                    var failure: Swift.Error?
                    do { try commitWrite() } catch { failure = error }
                    write.onComplete?(failure)
                } else {
                    cancelWrite()
                }
            } else {
                write.onComplete?(nil)
            }
            queue.current = nil
        }
        queue.isDraining = false
        // A synchronous write was open: try again on the next turn.
        if !queue.pending.isEmpty {
            queue.isDraining = true
            scheduleOnOwnScheduler { [self] in drainAsyncWrites() }
        }
    }

    /// Runs `work` later on this Realm's scheduler, with the Realm still alive.
    private func scheduleOnOwnScheduler(_ work: @escaping () -> Void) {
        let box = ConfinedWork(work)
        state.scheduler?.schedule { box.work() }
    }
}

/// Carries a closure over thread-confined values to the scheduler that owns them.
private final class ConfinedWork: @unchecked Sendable {
    // Safety: created on the Realm's scheduler and run there; nothing else touches it.
    let work: () -> Void
    init(_ work: @escaping () -> Void) { self.work = work }
}

import StrataEngine

/// The part of a notifier that knows what it observes: it captures the observed state at a
/// version, and derives the change to a later version from the commits in between.
///
/// Computers run on the notifier worker (or, when a Realm refreshes, on its thread) and never
/// touch thread-confined objects: everything they read is an immutable ``Snapshot``.
package protocol ChangeComputer: Sendable {
    /// What the computer remembers of the observed value at one version.
    associatedtype State: Sendable
    /// What it reports for a change.
    associatedtype Change: Sendable

    /// The state at `snapshot`.
    func initialState(at snapshot: Snapshot) -> State

    /// The state at `new` and the change from `state` (taken at `old`), given what the commits
    /// between them changed; nil when nothing observable changed.
    func advance(_ state: State, from old: Snapshot, to new: Snapshot, changes: CombinedChanges) -> (State, Change?)
}

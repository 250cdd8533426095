/// Strata: an embedded, reactive object store for Swift on Linux.
///
/// This module is the public product: Realm Swift's API (`Realm`, `Object`, `@Persisted`,
/// `Results`, `List`, notifications, …) over Strata's own engine. It re-exports the engine
/// (``Store``, ``Snapshot``, ``Changeset``, …) for code that works below the object API, and
/// the event loop (`EventLoop`, `Scheduler`) that Realms deliver their notifications on.
@_exported import StrataEngine
@_exported import StrataEventLoop
@_exported import struct StrataSupport.StrataError

/// Strata: an embedded, reactive object store for Swift on Linux.
///
/// This module is the public product: Realm Swift's API (`Realm`, `Object`, `@Persisted`,
/// `Results`, `List`, notifications, …) over Strata's own engine, whose layers are `package` API.
/// Besides its own declarations it re-exports only Strata's documented additions: the stored
/// value types (`ObjectId`, `Decimal128`), `Durability`, `StrataError`, and the libuv loop with
/// the scheduler seam (`LibUVEventLoop`, `StrataScheduler`) that Realms deliver notifications on.
/// Each is named so that it does not collide with swift-nio, swift-log or OpenCombine.
@_exported import StrataValues
@_exported import enum StrataEngine.Durability
@_exported import StrataEventLoop
@_exported import struct StrataSupport.StrataError

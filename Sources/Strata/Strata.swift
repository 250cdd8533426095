/// Strata: an embedded, reactive object store for Swift on Linux.
///
/// This module is the public product. Today it exposes the storage engine: ``Store`` (open,
/// snapshots, pins, checkpoints), ``WriteTransaction`` (tables, objects, lists, sets,
/// dictionaries), ``Snapshot`` and ``Table`` (reads), ``Changeset`` (what each commit did) and
/// ``StrataError``. The Realm-compatible object API (`Realm`, `Object`, `@Persisted`, …) is
/// built on top of it in this module.
@_exported import StrataEngine
@_exported import struct StrataSupport.StrataError

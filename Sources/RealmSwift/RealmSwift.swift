/// Realm Swift compatibility: `import RealmSwift` gives Strata's Realm API, so code written for
/// Realm Swift compiles unchanged on Linux.
@_exported import Strata

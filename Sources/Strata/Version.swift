/// The version of Strata this program was built with: the Semantic Versioning number of its
/// release (`CHANGELOG.md` lists what each release changed).
///
/// A constant of the module, so it reads as `Strata.version` (a type named `Strata` would hide
/// the module's name, and `Strata.Realm` would stop compiling):
///
/// ```swift
/// print("built with Strata \(Strata.version)")
/// ```
public let version = "0.1.0"

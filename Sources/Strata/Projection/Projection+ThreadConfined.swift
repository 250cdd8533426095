/// A projection is thread-confined as its root object is: `freeze()` projects the frozen root,
/// `thaw()` the live one, and a ``ThreadSafeReference`` to a projection resolves to a projection
/// of the same class, as in Realm Swift.
///
/// ```swift
/// let frozen = personView.freeze()    // readable from any thread
/// ```
extension Projection: ThreadConfined {
    public func _handover() -> _Handover {
        let root = rootObject._handover()
        let projectionType = type(of: self)
        return _Handover { realm in
            (root.attach(realm) as? Root).map { projectionType.init(projecting: $0) }
        }
    }
}

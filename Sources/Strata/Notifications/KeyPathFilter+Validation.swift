import StrataEngine

extension KeyPathFilter {
    /// Checks key-path filters from untrusted input before they reach ``collectionNode(_:for:)``
    /// or ``objectFilter(_:for:)``, which trap on an unknown property (Realm's contract for a
    /// programmer's mistake).
    ///
    /// A key path is valid when it is one or more non-empty components separated by `.`, each
    /// naming a property of the class the path has reached, and every component but the last is
    /// a link, a collection of links or a `LinkingObjects` property (a path goes no further than
    /// a value: `"name.count"`, `"payload.amount"` for a mixed `payload`, `"id..type"` and `"."`
    /// are refused rather than read as something they do not say).
    ///
    /// - Throws: ``Realm/Error`` with code `invalidQuery`, naming the key path and what is wrong.
    /// - Complexity: O(total length of the key paths).
    static func validate(_ keyPaths: [String], for info: ClassInfo) throws(Realm.Error) {
        for keyPath in keyPaths {
            let components = keyPath.split(separator: ".", omittingEmptySubsequences: false)
            guard !components.contains(where: \.isEmpty) else {
                throw Realm.Error(Realm.Error.invalidQuery, "Invalid key path '\(keyPath)': a key path is property "
                                  + "names separated by single dots, with no empty component")
            }
            var current = info
            for (position, name) in components.enumerated() {
                guard let index = current.propertyIndex[String(name)] else {
                    throw Realm.Error(Realm.Error.invalidQuery, "Invalid key path '\(keyPath)': property '\(name)' "
                                      + "not found in object of type '\(current.className)'")
                }
                guard position < components.count - 1 else { break }
                let property = current.properties[index]
                guard let target = property.column.objectType else {
                    throw Realm.Error(Realm.Error.invalidQuery, "Invalid key path '\(keyPath)': property '\(name)' of "
                                      + "'\(current.className)' is not a link, so the path cannot go past it")
                }
                current = ClassInfo.known(target)
            }
        }
    }

    /// The class whose properties key paths of `results` name: the element class, or nil for a
    /// collection of values.
    static func elementInfo<Element>(of results: Results<Element>) -> ClassInfo? {
        switch results.source {
        case .table(let className): ClassInfo.knownClasses.first { $0.className == className }
        case .collection(let base): base.objectClass.map(ClassInfo.known)
        }
    }
}

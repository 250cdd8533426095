import StrataEngine
import StrataNotify

/// Turns Realm key-path filters (`["name", "dogs.name"]`) into watch nodes over a Realm's tables.
///
/// Follows Realm's rules: `nil` or `[]` means no filter; `"p"` for a link or collection fires
/// when the link or membership changes; `"p.q"` also when `q` of a current target changes; a
/// `LinkingObjects` property fires when an object starts or stops linking. An unknown component
/// traps with Realm's message.
struct KeyPathFilter {
    let realm: Realm

    /// The node for a collection of `info` objects: Realm's four-link deep check without a filter.
    func collectionNode(_ keyPaths: [String]?, for info: ClassInfo) -> WatchNode {
        guard let keyPaths, !keyPaths.isEmpty else { return .deep(depth: 4) }
        return keyPaths.reduce(WatchNode.paths(columns: [], steps: [])) { merge($0, node(for: $1, in: info)) }
    }

    /// The per-property filter of an object observer of `info`: nil without key paths (every
    /// stored property, shallow).
    func objectFilter(_ keyPaths: [String]?, for info: ClassInfo) -> [ObjectComputer.Property]? {
        guard let keyPaths, !keyPaths.isEmpty, let table = realm.tableInfo(for: info) else { return nil }
        var byProperty: [Int: WatchNode] = [:]
        for keyPath in keyPaths {
            let components = keyPath.split(separator: ".").map(String.init)
            let (property, _) = resolve(components[0], in: info)
            byProperty[property] = merge(byProperty[property] ?? .paths(columns: [], steps: []), node(for: keyPath, in: info))
        }
        return byProperty.keys.sorted().map { property in
            let column = table.columns[property]
            return ObjectComputer.Property(tag: property, column: column >= 0 ? column : nil, node: byProperty[property]!)
        }
    }

    /// The node for one dotted key path rooted at `info`.
    func node(for keyPath: String, in info: ClassInfo) -> WatchNode {
        node(for: keyPath.split(separator: ".").map(String.init)[...], in: info)
    }

    private func node(for components: ArraySlice<String>, in info: ClassInfo) -> WatchNode {
        guard let first = components.first else { return .paths(columns: [], steps: []) }
        let (index, property) = resolve(first, in: info)
        guard let table = realm.tableInfo(for: info) else { return .paths(columns: [], steps: []) }
        let rest = components.dropFirst()
        if property.isLinkingObjects {
            guard let originType = property.column.objectType, let origin = realm.tableInfo(for: ClassInfo.known(originType)),
                  let originProperty = property.originProperty, let originIndex = origin.classInfo.propertyIndex[originProperty] else {
                return .paths(columns: [], steps: [])
            }
            let step = WatchStep(.backlink(origin: origin.key, column: origin.columns[originIndex]), target: origin.key,
                                 node: node(for: rest, in: origin.classInfo))
            return .paths(columns: [], steps: [step])
        }
        let column = table.columns[index]
        guard !rest.isEmpty else { return .paths(columns: [column], steps: []) }
        guard let targetType = property.column.objectType, let target = realm.tableInfo(for: ClassInfo.known(targetType)) else {
            // A path into a primitive collection or a mixed value stops at its property.
            return .paths(columns: [column], steps: [])
        }
        return .paths(columns: [column], steps: [WatchStep(.link(column: column), target: target.key,
                                                             node: node(for: rest, in: target.classInfo))])
    }

    private func resolve(_ name: String, in info: ClassInfo) -> (Int, PropertyInfo) {
        guard let index = info.propertyIndex[name] else {
            preconditionFailure("Invalid property name: property '\(name)' not found in object of type '\(info.className)'")
        }
        return (index, info.properties[index])
    }

    private func merge(_ a: WatchNode, _ b: WatchNode) -> WatchNode {
        switch (a, b) {
        case (.paths(let columnsA, let stepsA), .paths(let columnsB, let stepsB)):
            return .paths(columns: columnsA.union(columnsB), steps: stepsA + stepsB)
        case (.deep(let depthA), .deep(let depthB)):
            return .deep(depth: max(depthA, depthB))
        case (.deep, _): return a
        case (_, .deep): return b
        }
    }
}

extension KeyPathTracer {
    /// Realm's string form of Swift key paths for observers: `\.list[0].child?.value` is
    /// `"list.child.value"` (collection subscripts dropped).
    static func observedNames<Root: ObjectBase>(_ keyPaths: [PartialKeyPath<Root>]) -> [String] {
        keyPaths.map { keyPath in
            let tracer = KeyPathTracer()
            let object = tracer.tracedObject(Root.self)
            _ = object[keyPath: keyPath]
            precondition(!tracer.names.isEmpty, "Key path \(keyPath) does not refer to a @Persisted property of "
                         + "'\(Root.className())'")
            return tracer.names.joined(separator: ".")
        }
    }
}

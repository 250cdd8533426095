import StrataEngine

/// Which changes around an object count as a change of that object: a key-path filter,
/// resolved against the schema, or Realm's default (every property, and for collections every
/// property of objects reachable through up to four links).
///
/// `["name", "dogs.name"]` on a `Person` is a node watching the columns `name` and `dogs` (a
/// reassigned link or a changed list counts) that follows `dogs` into a node watching `Dog.name`.
package indirect enum WatchNode: Sendable, Hashable {
    /// Explicit key paths.
    case paths(columns: Set<Int>, steps: [WatchStep])
    /// Any property of the object, and of any object reachable through up to `depth` links.
    case deep(depth: Int)

    /// Only the object's own properties (Realm's unfiltered object observer).
    package static let shallow = WatchNode.deep(depth: 0)
}

/// One hop of a watched key path.
package struct WatchStep: Sendable, Hashable {
    /// How the hop goes.
    package enum Direction: Sendable, Hashable {
        /// Through the column `column` (a link or a collection of links) of the watching object.
        case link(column: Int)
        /// To the objects of `origin` whose column `column` links to the watching object (a
        /// `LinkingObjects` property).
        case backlink(origin: TableKey, column: Int)
    }

    /// How the hop goes.
    package var direction: Direction
    /// The table the hop lands in.
    package var target: TableKey
    /// What counts there.
    package var node: WatchNode

    /// Creates a hop.
    package init(_ direction: Direction, target: TableKey, node: WatchNode) {
        self.direction = direction
        self.target = target
        self.node = node
    }
}

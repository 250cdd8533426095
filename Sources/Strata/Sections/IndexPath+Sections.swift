import Foundation

extension IndexPath {
    /// An index path of a row in a section, as UIKit spells it (Linux's Foundation has no
    /// UIKit): `[section, item]`.
    public init(item: Int, section: Int) {
        self.init(indexes: [section, item])
    }

    /// The section of a two-element index path.
    public var section: Int { self[0] }

    /// The row within the section of a two-element index path.
    public var item: Int { self[1] }
}

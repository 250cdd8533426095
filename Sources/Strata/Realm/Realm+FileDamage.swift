import Foundation
import StrataEngine

extension Realm {
    /// One damaged place in a Realm's files, as ``Realm/verify(configuration:)`` and
    /// ``Realm/salvage(configuration:to:)`` report it.
    ///
    /// A page of the Realm file whose checksum fails, that holds another page's number, or whose
    /// contents are malformed; a damaged header slot; a damaged commit log record or a missing log
    /// segment. Reading such a page through an open Realm stops the process (Realm's read API
    /// cannot throw), so find damage with ``Realm/verify(configuration:)`` before opening.
    public struct FileDamage: Sendable, Equatable, CustomStringConvertible {
        /// The damaged file: the Realm file, or one of its commit log segments.
        public let fileURL: URL
        /// The number of the damaged page of the Realm file (page `n` is the bytes at
        /// `n × pageSize`; pages 0 and 1 are the header slots); nil for a log segment, or when the
        /// damage is not one page's (a page both free and in use, an inconsistent catalog entry).
        public let page: UInt64?
        /// The byte offset of the damage in ``fileURL``, when known.
        public let offset: UInt64?
        /// What is wrong, as a sentence naming the file and page: "page 7 of /data/app.strata is
        /// damaged: checksum mismatch (torn, overwritten or never written)".
        public let problem: String
        /// What the damaged place held, when known: "the objects of table Event", "the primary-key
        /// index of table Event", "the catalog", "the header", "the commit log".
        public let structure: String?

        init(_ damage: StoreDamage) {
            fileURL = URL(fileURLWithPath: damage.path)
            page = damage.page
            offset = damage.offset
            problem = damage.problem
            structure = damage.structure
        }

        /// The problem, followed by what the damaged place held when known.
        public var description: String { problem + (structure.map { " (in \($0))" } ?? "") }
    }

    /// What ``Realm/verify(configuration:)`` found: how much of the Realm's files it read and
    /// checked, and every damaged place.
    public struct VerificationReport: Sendable, CustomStringConvertible {
        /// The Realm file.
        public let fileURL: URL
        /// The page size of the Realm file (0 when it has none yet).
        public let pageSize: Int
        /// How many pages of the Realm file's last checkpoint were read and checked.
        public let pagesChecked: Int
        /// How many commit log records after the checkpoint were read and checked.
        public let logRecordsChecked: Int
        /// Every damaged place found: empty when the files are intact.
        public let damage: [FileDamage]

        /// Whether no damage was found.
        public var isIntact: Bool { damage.isEmpty }

        /// The damaged pages of the Realm file, ascending, without repeats.
        public var damagedPages: [UInt64] { Array(Set(damage.compactMap(\.page))).sorted() }

        init(_ verification: StoreVerification) {
            fileURL = URL(fileURLWithPath: verification.path)
            pageSize = verification.pageSize
            pagesChecked = verification.pagesChecked
            logRecordsChecked = verification.logRecordsChecked
            damage = verification.damage.map(FileDamage.init)
        }

        /// One line per finding: "intact" with what was checked, or each damaged place.
        public var description: String {
            let checked = "\(pagesChecked) pages and \(logRecordsChecked) log records of \(fileURL.path) checked"
            guard !isIntact else { return "intact: " + checked }
            return "\(damage.count) damaged: " + checked + "\n" + damage.map { "  " + $0.description }
                .joined(separator: "\n")
        }
    }

    /// What ``Realm/salvage(configuration:to:)`` copied, what it could not, and why.
    public struct SalvageReport: Sendable {
        /// The damaged Realm file.
        public let fileURL: URL
        /// The new Realm file holding what was salvaged.
        public let destinationURL: URL
        /// The objects the new Realm holds.
        public var objectsSalvaged: Int { objectsSalvagedByType.values.reduce(0, +) }
        /// The objects of the damaged file's last checkpoint that sat on damaged pages (as the
        /// pages above them count them; 0 when the damage hid even that, as a damaged catalog does).
        public var objectsLost: Int { objectsLostByType.values.reduce(0, +) }
        /// The objects the new Realm holds, by object type name.
        public let objectsSalvagedByType: [String: Int]
        /// The objects lost (see ``objectsLost``), by object type name; types that lost none are absent.
        public let objectsLostByType: [String: Int]
        /// The commit log records after the checkpoint that were applied to what was salvaged.
        public let logRecordsApplied: Int
        /// The commit log records skipped whole because they change an object that was lost.
        public let logRecordsSkipped: Int
        /// The links to lost objects removed from salvaged objects (as deleting the target would).
        public let linksRemoved: Int
        /// Every damaged place found.
        public let damage: [FileDamage]

        init(_ salvage: StoreSalvage) {
            fileURL = URL(fileURLWithPath: salvage.path)
            destinationURL = URL(fileURLWithPath: salvage.destination)
            // Strata's own tables (named with a leading "__") are not object types.
            objectsSalvagedByType = salvage.objectsSalvaged.filter { !$0.key.hasPrefix("__") }
            objectsLostByType = salvage.objectsLost.filter { !$0.key.hasPrefix("__") }
            logRecordsApplied = salvage.logRecordsApplied
            logRecordsSkipped = salvage.logRecordsSkipped
            linksRemoved = salvage.linksRemoved
            damage = salvage.damage.map(FileDamage.init)
        }
    }
}

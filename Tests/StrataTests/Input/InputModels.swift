import Foundation
import Strata

/// Models for the value-input and key-value coding tests: every type a JSON document can
/// represent, a link with a primary key, an embedded object and collections.
final class InputPerson: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name = ""
    @Persisted var age: Int
    @Persisted var age8: Int8
    @Persisted var age16: Int16
    @Persisted var age32: Int32
    @Persisted var age64: Int64
    @Persisted var height: Double
    @Persisted var weight: Float
    @Persisted var active: Bool
    @Persisted var balance: Decimal128
    @Persisted var nickname: String?
    @Persisted var score: Int?
    @Persisted var rating: Double?
    @Persisted var verified: Bool?
    @Persisted var born: Date?
    @Persisted var scores: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var ratings: Map<String, Double>
    @Persisted var extra: AnyRealmValue
    @Persisted var address: InputAddress?
    @Persisted var pet: InputPet?
    @Persisted var pets: List<InputPet>
}

/// An embedded object of ``InputPerson``.
final class InputAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var zip: Int?
}

/// A linked object with a primary key.
final class InputPet: Object {
    @Persisted(primaryKey: true) var name = ""
    @Persisted var age: Int
    @Persisted var weight: Double
    @Persisted var born: Date?
    @Persisted var price: Decimal128?
    @Persisted(originProperty: "pets") var owners: LinkingObjects<InputPerson>
}

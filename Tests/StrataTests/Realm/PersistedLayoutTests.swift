import Foundation
@testable import Strata
import Testing

private enum LayoutColor: String, PersistableEnum {
    case red, green
}

/// Binding a managed object writes each `Persisted` storage's first two fields at fixed
/// offsets (`PersistedLayout`); these hold those offsets to instantiations of every kind.
@Suite("Persisted layout")
struct PersistedLayoutTests {
    private func expectFixedOffsets<V: _Persistable>(_ type: V.Type, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(MemoryLayout<Persisted<V>>.offset(of: \.managedProperty) == PersistedLayout.propertyOffset,
                "\(V.self)", sourceLocation: sourceLocation)
        #expect(MemoryLayout<Persisted<V>>.offset(of: \.managedOwner) == PersistedLayout.ownerOffset,
                "\(V.self)", sourceLocation: sourceLocation)
        #expect(MemoryLayout<Unmanaged<ObjectBase>?>.size == MemoryLayout<UnsafeRawPointer>.size)
    }

    @Test("the managed property index and owner sit at the same offsets whatever the value type")
    func offsetsDoNotDependOnTheValue() {
        expectFixedOffsets(Bool.self)
        expectFixedOffsets(Int8.self)
        expectFixedOffsets(Int.self)
        expectFixedOffsets(Double.self)
        expectFixedOffsets(String.self)
        expectFixedOffsets(String?.self)
        expectFixedOffsets(Data.self)
        expectFixedOffsets(Date.self)
        expectFixedOffsets(UUID.self)
        expectFixedOffsets(ObjectId.self)
        expectFixedOffsets(Decimal128.self)
        expectFixedOffsets(AnyRealmValue.self)
        expectFixedOffsets(LayoutColor.self)
        expectFixedOffsets(List<String>.self)
        expectFixedOffsets(MutableSet<Int>.self)
        expectFixedOffsets(Map<String, Double>.self)
    }
}

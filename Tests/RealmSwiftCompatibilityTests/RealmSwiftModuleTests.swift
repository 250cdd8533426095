import RealmSwift
import Testing

@Suite("RealmSwift module")
struct RealmSwiftModuleTests {
    @Test("import RealmSwift exposes the Realm API")
    func exposesAPI() {
        let configuration = Realm.Configuration(inMemoryIdentifier: "compat")
        #expect(configuration.inMemoryIdentifier == "compat")
    }
}

@testable import StrataEngine
import Testing

@Suite("ObjectKeySet")
struct ObjectKeySetTests {
    @Test("A transaction's consecutive new keys are one run, erasing one splits it, and the set answers as a Set would")
    func runs() {
        var set = ObjectKeySet()
        var allNew = true
        for raw in Int64(1)...100_000 where !set.insert(ObjectKey(raw)) { allNew = false }
        #expect(allNew && set.count == 100_000)
        let again = set.insert(ObjectKey(5))
        #expect(!again)
        #expect(set.contains(ObjectKey(1)) && set.contains(ObjectKey(100_000)) && !set.contains(ObjectKey(100_001)))
        let removed = set.remove(ObjectKey(50_000)), removedAgain = set.remove(ObjectKey(50_000))
        #expect(removed == ObjectKey(50_000) && removedAgain == nil)
        #expect(!set.contains(ObjectKey(50_000)) && set.contains(ObjectKey(49_999)) && set.contains(ObjectKey(50_001)))
        #expect(set.count == 99_999)
        #expect(Array(set.prefix(3)) == [ObjectKey(1), ObjectKey(2), ObjectKey(3)], "ascending while kept as runs")
        set.insert(ObjectKey(50_000))
        #expect(set == ObjectKeySet((1...100_000).map { ObjectKey(Int64($0)) }))
    }

    @Test("Random inserts and removals, past the run limit, match a Set<ObjectKey> (seeded; STRATA_SEED replays)")
    func matchesSet() {
        let seed = SeededRandom.seedFromEnvironment()
        var random = SeededRandom(seed: seed)
        for round in 0..<20 {
            var set = ObjectKeySet()
            var model = Set<ObjectKey>()
            let span = UInt64([40, 400, 4_000][round % 3])
            for _ in 0..<2_000 {
                let key = ObjectKey(Int64(random.next() % span))
                if random.next() % 3 == 0 {
                    let removed = set.remove(key) != nil, expected = model.remove(key) != nil
                    #expect(removed == expected, "seed \(seed)")
                } else {
                    let inserted = set.insert(key), expected = model.insert(key).inserted
                    #expect(inserted == expected, "seed \(seed)")
                }
                #expect(set.count == model.count, "seed \(seed)")
            }
            #expect(Set(set) == model, "seed \(seed), round \(round)")
            #expect(set == ObjectKeySet(model), "equal across forms, seed \(seed)")
            for raw in 0..<Int64(span) { #expect(set.contains(ObjectKey(raw)) == model.contains(ObjectKey(raw))) }
        }
    }

    @Test("Keys at both ends of Int64 join and split runs without overflowing")
    func extremeKeys() {
        var set = ObjectKeySet()
        for raw in [Int64.max, .min, .max - 1, .min + 1, 0] { set.insert(ObjectKey(raw)) }
        #expect(set.count == 5)
        #expect(Array(set) == [Int64.min, .min + 1, 0, .max - 1, .max].map(ObjectKey.init))
        let removed = [set.remove(ObjectKey(.max)), set.remove(ObjectKey(.min))]
        #expect(removed == [ObjectKey(.max), ObjectKey(.min)])
        #expect(Array(set) == [Int64.min + 1, 0, .max - 1].map(ObjectKey.init))
    }

    @Test("Sets with the same keys are equal whatever their form; different keys are not")
    func equality() {
        let scattered = ObjectKeySet((0..<Int64(ObjectKeySet.runLimit + 1)).map { ObjectKey($0 * 2) })
        var runs = ObjectKeySet()
        for raw in 0..<Int64(ObjectKeySet.runLimit + 1) { runs.insert(ObjectKey(raw * 2)) }
        #expect(scattered == runs)
        var shifted = runs
        shifted.remove(ObjectKey(0))
        shifted.insert(ObjectKey(1))
        #expect(shifted != runs)
        #expect(ObjectKeySet([ObjectKey(1), ObjectKey(2)]) == [ObjectKey(2), ObjectKey(1)])
        #expect(ObjectKeySet().isEmpty && ObjectKeySet() == [])
    }
}

/// The notes for figures Strata cannot produce yet (the table shows the text before ';').
enum NotYetInStrata {
    static let notifications = "not yet implemented in Strata; needs collection notifications carrying the new "
        + "value (Realm.observe only says that something changed)"

    static func side(_ fixtureSync: String, _ note: String) -> Comparison.Side {
        .notMeasured(sync: fixtureSync, note: note)
    }
}

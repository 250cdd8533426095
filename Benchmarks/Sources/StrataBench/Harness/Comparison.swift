/// The aggregated figures of both stores for one workload.
struct Compared {
    let pairing: Pairing?
    let grdb: Figures
    let strata: Figures
}

/// One workload measured on both stores in the same process, alternating GRDB and Strata
/// repetition by repetition (GRDB, Strata, GRDB, Strata, …); prints one JSON line per store.
struct Comparison {
    let workload: String
    /// The durability pair, or nil for a workload that does not commit (it runs on `.normal`).
    let pairing: Pairing?
    let repetition: Repetition

    /// A store's side: its measurement, or the note that says why it is not measured (its line
    /// then has the other store's field names, all null).
    enum Side {
        case measure(() throws -> Figures)
        case notMeasured(sync: String, note: String)
    }

    func run(grdb: Side, strata: Side) throws -> Compared {
        var grdbRuns: [Figures] = []
        var strataRuns: [Figures] = []
        for _ in 0..<repetition.count {
            if case .measure(let body) = grdb { grdbRuns.append(try body()) }
            if case .measure(let body) = strata { strataRuns.append(try body()) }
        }
        let measuredRuns = grdbRuns.isEmpty ? strataRuns : grdbRuns
        precondition(!measuredRuns.isEmpty, "\(workload): neither store measured")
        let template = repetition.aggregate(measuredRuns)
        func result(_ side: Side, _ runs: [Figures]) -> Figures {
            switch side {
            case .measure: repetition.aggregate(runs)
            case .notMeasured(let sync, let note): template.missing(sync: sync, note: note)
            }
        }
        let compared = Compared(pairing: pairing, grdb: result(grdb, grdbRuns), strata: result(strata, strataRuns))
        JSONLine.print(workload: workload, store: "grdb", pairing: pairing, reps: repetition.label, compared.grdb)
        JSONLine.print(workload: workload, store: "strata", pairing: pairing, reps: repetition.label, compared.strata)
        return compared
    }

    /// Runs the workload once per durability pair.
    static func perPairing(_ workload: String, _ repetition: Repetition,
                           _ body: (Comparison) throws -> Void) throws {
        for pairing in Pairing.allCases {
            try body(Comparison(workload: workload, pairing: pairing, repetition: repetition))
        }
    }
}

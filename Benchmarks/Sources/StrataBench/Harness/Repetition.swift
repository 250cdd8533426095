/// The workload's repetition rule (BENCHMARKS.md): slow workloads report the best of 3, fast ones the median of 5.
/// `--quick` runs each workload once (labelled "quick: 1 run" in every line).
enum Repetition {
    /// The repetition whose `key` figure is best (its other figures come with it).
    case best(of: Int, by: String, higherIsBetter: Bool = true)
    /// The median of each numeric figure over the repetitions.
    case median(of: Int)

    var count: Int {
        if Options.quick { return 1 }
        switch self {
        case .best(let count, _, _), .median(let count): return count
        }
    }

    var label: String {
        if Options.quick { return "quick: 1 run" }
        switch self {
        case .best(1, _, _), .median(1): return "1 run"
        case .best(let count, _, _): return "best of \(count)"
        case .median(let count): return "median of \(count)"
        }
    }

    func aggregate(_ runs: [Figures]) -> Figures {
        switch self {
        case .best(_, let key, let higherIsBetter):
            return runs.max { left, right in
                let (l, r) = (left[key].number ?? 0, right[key].number ?? 0)
                return higherIsBetter ? l < r : l > r
            }!
        case .median:
            var result = runs[0]
            result.values = result.values.map { key, first in
                switch first {
                case .number: return (key, .number(percentile(runs.compactMap { $0[key].number }, 0.5)))
                case .integer: return (key, .integer(Int(percentile(runs.compactMap { $0[key].number }, 0.5))))
                default: return (key, first)
                }
            }
            return result
        }
    }
}

import Foundation
import StrataTestSupport

/// The real `strata` executable (or another of the package's programs), run as an operator runs
/// it.
enum ToolProcess {
    /// Runs `program` with `arguments`, `input` on standard input, and `COLUMNS` set to
    /// `columns`.
    static func run(_ arguments: [String], input: String? = nil, columns: Int = 80,
                    program: String = "strata") throws -> FinishedProcess {
        try FinishedProcess.run(try FinishedProcess.locate(program), arguments, input: input,
                                environment: ["COLUMNS": String(columns)])
    }
}

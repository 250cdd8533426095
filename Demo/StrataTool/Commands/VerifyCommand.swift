import ArgumentParser
import Foundation
import StrataTerminal
@_spi(StrataTool) import Strata

/// `strata verify FILE`: every page and log record read and checked, then the indexes and
/// backlinks checked against the rows. Exit status 0 only when all is well, 2 with a report of
/// what is wrong otherwise.
struct VerifyCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "verify", abstract: "Check every page, log record, index and backlink of a store.")

    @Argument(help: "The store file.") var file: String

    func run() throws {
        try StoreOpening.checkExists(file)
        let url = URL(fileURLWithPath: file)
        let report: Realm.VerificationReport
        do {
            report = try Progress("checking pages and log records").run {
                try Realm.verify(configuration: Realm.Configuration(fileURL: url))
            }
        } catch {
            throw StoreOpening.explained(error, path: file)
        }
        guard report.isIntact else {
            for damage in report.damage {
                Terminal.print("damaged: " + ([damage.fileURL.lastPathComponent]
                    + [damage.page.map { "page \($0)" }, damage.offset.map { "offset \($0)" }].compactMap { $0 })
                    .joined(separator: ", ") + ": \(damage)")
            }
            throw ToolError("\(report.damage.count) damaged place\(report.damage.count == 1 ? "" : "s") in '\(file)'",
                            status: 2)
        }
        let inspector = try StoreOpening.inspector(file, readOnly: true)
        let problems = Progress("checking indexes and backlinks").run { inspector.consistencyProblems() }
        for problem in problems { Terminal.print("inconsistent: \(problem)") }
        guard problems.isEmpty else {
            throw ToolError("\(problems.count) inconsistenc\(problems.count == 1 ? "y" : "ies") in '\(file)'", status: 2)
        }
        let objects = inspector.classes.reduce(0) { $0 + $1.count }
        Terminal.print("ok: \(Progress.grouped(report.pagesChecked)) pages and \(Progress.grouped(report.logRecordsChecked)) "
                       + "log records checked; the indexes and backlinks of \(Progress.grouped(objects)) objects agree")
    }
}

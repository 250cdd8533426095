import Foundation
import StrataEngine
import StrataStorage

extension Realm.Error {
    /// Realm's code and message for a file that could not be opened, which apps show and match:
    /// `Failed to open Realm file at path '…': No such file or directory` (fileNotFound),
    /// `… Permission denied. …` (filePermissionDenied), `Failed to open file at path '…': parent
    /// path is not a directory` (fileOperationFailed), `… file is non-empty but too small (N
    /// bytes) to be a valid Realm.` (invalidDatabase), `… not a regular file` (fileAccess, for a
    /// device or directory); any other failure to open the file keeps its code, and its reason
    /// follows the same prefix.
    static func opening(_ error: any Swift.Error, path: String?) -> Realm.Error {
        guard let failure = error as? StrataError, let path else { return wrap(error) }
        let prefix = "Failed to open Realm file at path '\(path)': "
        func refusal(_ code: Code, _ message: String) -> Realm.Error {
            Realm.Error(code, message, path: path, underlying: failure)
        }
        switch failure.errno {
        case ENOTDIR?:
            return refusal(.fileOperationFailed,
                           "Failed to open file at path '\(path)': parent path is not a directory")
        case EACCES?, EPERM?:
            return refusal(.filePermissionDenied,
                           prefix + "Permission denied. Please use a path where your app has read-write permissions.")
        default:
            break
        }
        switch failure.code {
        case .fileNotFound:
            return refusal(.fileNotFound, prefix + "No such file or directory")
        case .invalidFileFormat, .corruptFile:
            switch Self.fileKind(at: path) {
            case .notARegularFile:
                return refusal(.fileAccess, prefix + "not a regular file")
            case .regular(let size) where size > 0 && size < UInt64(PageFrame.minimumPageSize):
                return refusal(.invalidDatabase,
                               prefix + "file is non-empty but too small (\(size) bytes) to be a valid Realm.")
            default:
                return refusal(.invalidDatabase, prefix + Realm.Error(failure).message)
            }
        case .fileAccess:
            let translated = Realm.Error(failure)
            return refusal(translated.code, prefix + translated.message)
        default:
            return Realm.Error(failure)
        }
    }

    private enum FileKind {
        case missing, notARegularFile, regular(UInt64)
    }

    /// What is at `path`: nothing, something other than a regular file (a device, a
    /// directory), or a regular file of some size.
    private static func fileKind(at path: String) -> FileKind {
        var status = stat()
        guard stat(path, &status) == 0 else { return .missing }
        guard status.st_mode & S_IFMT == S_IFREG else { return .notARegularFile }
        return .regular(UInt64(status.st_size))
    }
}

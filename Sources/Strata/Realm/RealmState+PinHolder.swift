#if canImport(Glibc)
import Glibc
#endif
import Foundation
import StrataEngine
import StrataEventLoop

extension RealmState {
    /// What this state's pins are held by, as ``Realm/Statistics/HeldVersion/holders`` shows it:
    /// a frozen Realm, or a live one with what it is confined to.
    ///
    /// Called once, by the state's creator on the state's thread (a thread's name is read there).
    static func pinHolder(confinement: Confinement, scheduler: (any StrataScheduler)?, isFrozen: Bool) -> PinHolder {
        if isFrozen { return PinHolder(.frozen, "a frozen Realm, or objects or collections frozen from one") }
        switch confinement {
        case .thread:
            let loop = scheduler.map { ", delivering on its \(type(of: $0))" } ?? ""
            return PinHolder(.realm, "a Realm on \(currentThreadDescription)\(loop)")
        case .main:
            return PinHolder(.realm, "a Realm on the main thread")
        case .scheduler(let scheduler as DispatchQueueScheduler):
            return PinHolder(.realm, "a Realm on the dispatch queue \"\(scheduler.queue.label)\"")
        case .scheduler(let scheduler):
            return PinHolder(.realm, "a Realm on a scheduler of type \(type(of: scheduler))")
        case .actor(let actor):
            return PinHolder(.realm, "a Realm isolated to an actor of type \(type(of: actor))")
        }
    }

    /// The calling thread: its kernel id and, when it has one, its name (Foundation's, or the
    /// one `pthread_setname_np` gave it, as `ps -L` shows it), read from `/proc/thread-self`.
    static var currentThreadDescription: String {
        var link = [CChar](repeating: 0, count: 64)
        let length = readlink("/proc/thread-self", &link, link.count - 1)
        let id = length > 0 ? String(decoding: link.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
            .split(separator: "/").last.map(String.init) : nil
        var name = Thread.current.name ?? ""
        if name.isEmpty, let comm = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) {
            name = comm.trimmingCharacters(in: .newlines)
        }
        let thread = id.map { "thread \($0)" } ?? "a thread"
        return name.isEmpty ? thread : "\(thread) \"\(name)\""
    }
}

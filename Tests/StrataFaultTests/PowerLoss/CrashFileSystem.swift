/// A model of one directory under power loss, fed a trace (``TraceEvent``) one event at a time.
///
/// What survives a power cut, as modelled here:
/// - A file's bytes written before a `fdatasync` of it *started* are durable once that sync
///   finished (the sync covers what the kernel had when it began; a concurrent write may or may
///   not be covered, so it counts as not durable). `fdatasync` also makes the file's size durable.
/// - A failed sync makes every change before it unsyncable: it never becomes durable, even when
///   a later sync of the file succeeds (Linux reports a write-back error once and may drop the
///   pages), though it may still survive a crash.
/// - Bytes written since the file's last completed sync survive page by page: each 4 KiB page
///   they touched holds either its new or its old contents, one such page may be torn at a
///   512-byte boundary (new sectors first, old ones after), and the file ends at its old or its
///   new length; pages past the old length that were not kept read as zeros.
/// - A creation, rename or removal survives only when a sync of the directory started after it
///   finished; each one not covered so may or may not have happened (chosen one by one, in
///   order, skipping those whose source no longer exists).
struct CrashFileSystem {
    static let pageSize = 4096
    static let sectorSize = 512

    enum FileChange {
        case write(offset: Int, bytes: [UInt8])
        case truncate(length: Int)
    }

    enum EntryChange {
        case link(String, inode: Int)
        case rename(String, to: String)
        case unlink(String)
    }

    struct File {
        /// What is on disk for sure.
        var durable: [UInt8] = []
        /// The file as the process saw it last.
        var latest: [UInt8] = []
        /// Changes since `durable`, with the index of the event that made them.
        var pending: [(index: Int, change: FileChange)] = []
        /// Indexes of the syncs running on the file, oldest first.
        var syncsStarted: [Int] = []
        /// Changes made before this event index can never become durable: a sync of them failed,
        /// and Linux may have dropped them while a later sync reports success.
        var lostBefore = 0
    }

    private(set) var files: [File] = []
    private(set) var durableNames: [String: Int] = [:]
    private(set) var latestNames: [String: Int] = [:]
    private var pendingEntries: [(index: Int, change: EntryChange)] = []
    private var directorySyncsStarted: [Int] = []
    /// How many events have been applied.
    private(set) var position = 0

    // MARK: - Applying the trace

    /// Applies the event at index ``position``.
    mutating func apply(_ event: TraceEvent) {
        let index = position
        position += 1
        switch event {
        case .opened(let name, let truncated):
            if let inode = latestNames[name] {
                if truncated { change(inode, .truncate(length: 0), at: index) }
            } else {
                files.append(File())
                latestNames[name] = files.count - 1
                pendingEntries.append((index, .link(name, inode: files.count - 1)))
            }
        case .wrote(let name, let offset, let bytes):
            guard let inode = latestNames[name] else { return }
            change(inode, .write(offset: Int(offset), bytes: bytes), at: index)
        case .truncated(let name, let length):
            guard let inode = latestNames[name] else { return }
            change(inode, .truncate(length: Int(length)), at: index)
        case .syncStarted(let name):
            guard let inode = latestNames[name] else { return }
            files[inode].syncsStarted.append(index)
        case .syncFinished(let name):
            guard let inode = latestNames[name], !files[inode].syncsStarted.isEmpty else { return }
            // With two syncs in flight, the older start is the one that covers less: assume it.
            let started = files[inode].syncsStarted.removeFirst()
            let lostBefore = files[inode].lostBefore
            let covered = files[inode].pending.filter { $0.index < started && $0.index >= lostBefore }
            for (_, change) in covered { Self.apply(change, to: &files[inode].durable) }
            files[inode].pending.removeAll { $0.index < started && $0.index >= lostBefore }
        case .syncFailed(let name):
            guard let inode = latestNames[name] else { return }
            files[inode].lostBefore = index
        case .directorySyncStarted:
            directorySyncsStarted.append(index)
        case .directorySyncFinished:
            guard !directorySyncsStarted.isEmpty else { return }
            let started = directorySyncsStarted.removeFirst()
            let covered = pendingEntries.prefix { $0.index < started }
            for (_, change) in covered { Self.apply(change, to: &durableNames) }
            pendingEntries.removeFirst(covered.count)
        case .renamed(let source, let destination):
            guard let inode = latestNames.removeValue(forKey: source) else { return }
            latestNames[destination] = inode
            pendingEntries.append((index, .rename(source, to: destination)))
        case .removed(let name):
            guard latestNames.removeValue(forKey: name) != nil else { return }
            pendingEntries.append((index, .unlink(name)))
        case .acknowledged:
            break
        }
    }

    private mutating func change(_ inode: Int, _ change: FileChange, at index: Int) {
        Self.apply(change, to: &files[inode].latest)
        files[inode].pending.append((index, change))
    }

    private static func apply(_ change: FileChange, to bytes: inout [UInt8]) {
        switch change {
        case .write(let offset, let data):
            if bytes.count < offset + data.count { bytes += repeatElement(0, count: offset + data.count - bytes.count) }
            bytes.replaceSubrange(offset..<offset + data.count, with: data)
        case .truncate(let length):
            if length < bytes.count { bytes.removeLast(bytes.count - length) } else {
                bytes += repeatElement(0, count: length - bytes.count)
            }
        }
    }

    private static func apply(_ change: EntryChange, to names: inout [String: Int]) {
        switch change {
        case .link(let name, let inode): names[name] = inode
        case .rename(let source, let destination):
            if let inode = names.removeValue(forKey: source) { names[destination] = inode }
        case .unlink(let name): names[name] = nil
        }
    }

    // MARK: - Crash states

    /// The worst state a crash right after the last applied event may leave: only what was
    /// synced (names whose directory was synced, bytes whose file was synced).
    func syncedOnlyState() -> [String: [UInt8]] {
        durableNames.mapValues { files[$0].durable }
    }

    /// What a crash right after the last applied event may leave: file names and contents,
    /// chosen with `random`. Also says what was chosen, for the failure report.
    func crashState(using random: inout SeededRandom) -> (files: [String: [UInt8]], description: String) {
        var names = durableNames
        var notes: [String] = []
        for (_, change) in pendingEntries {
            let happened = random.next() % 2 == 0
            notes.append("\(happened ? "+" : "-")\(change)")
            if happened { Self.apply(change, to: &names) }
        }
        var result: [String: [UInt8]] = [:]
        for (name, inode) in names.sorted(by: { $0.key < $1.key }) {
            let (bytes, note) = Self.crashContents(of: files[inode], using: &random)
            result[name] = bytes
            notes.append("\(name): \(note)")
        }
        return (result, notes.joined(separator: "; "))
    }

    /// The contents of `file` after the crash: see the type's summary.
    private static func crashContents(of file: File, using random: inout SeededRandom) -> ([UInt8], String) {
        guard !file.pending.isEmpty else { return (file.durable, "\(file.durable.count) bytes, all synced") }
        var dirty = Set<Int>()
        for (_, change) in file.pending {
            switch change {
            case .write(let offset, let bytes) where !bytes.isEmpty:
                dirty.formUnion(offset / pageSize...(offset + bytes.count - 1) / pageSize)
            case .write: break
            case .truncate(let length):
                let low = min(length, file.durable.count) / pageSize
                let high = max(length, file.durable.count, file.latest.count) / pageSize
                dirty.formUnion(low...high)
            }
        }
        // A quarter of the states keep every unsynced page, a quarter none, the rest a random subset.
        let mode = random.next() % 4
        let kept = Set(dirty.filter { _ in mode == 0 || (mode >= 2 && random.next() % 2 == 0) })
        let length = random.next() % 2 == 0 ? file.latest.count : file.durable.count
        var bytes = [UInt8](repeating: 0, count: length)
        for page in 0..<(length + pageSize - 1) / pageSize {
            let range = page * pageSize..<min(length, (page + 1) * pageSize)
            let source = kept.contains(page) ? file.latest : file.durable
            copy(range, from: source, into: &bytes)
        }
        var torn = "none"
        if let page = dirty.sorted().randomElement(using: &random), page * pageSize < length {
            let sectors = Int(random.next() % 7) + 1
            let split = min(length, page * pageSize + sectors * sectorSize)
            copy(page * pageSize..<split, from: file.latest, into: &bytes)
            copy(split..<min(length, (page + 1) * pageSize), from: file.durable, into: &bytes)
            torn = "page \(page) after \(sectors) sectors"
        }
        let note = "\(length) bytes (synced \(file.durable.count), written \(file.latest.count)), "
            + "unsynced pages \(dirty.count), kept \(kept.sorted()), torn \(torn)"
        return (bytes, note)
    }

    /// Copies `range` of `source` (zeros past its end) into `bytes`.
    private static func copy(_ range: Range<Int>, from source: [UInt8], into bytes: inout [UInt8]) {
        let end = max(range.lowerBound, min(range.upperBound, source.count))
        if end > range.lowerBound { bytes.replaceSubrange(range.lowerBound..<end, with: source[range.lowerBound..<end]) }
        bytes.replaceSubrange(end..<range.upperBound, with: repeatElement(0, count: range.upperBound - end))
    }
}

import StrataStorage
import StrataSupport

extension PageFile {
    /// The error that says this file's current header slot is damaged, when it is: the open passed
    /// over a slot that does not check out (see ``skippedSlot``) and the log segment the header
    /// it opened at needs is gone. A checkpoint deletes the segments the previous header needs
    /// only once its own header is durable, so the slot passed over was that durable header,
    /// damaged since; a slot torn by a crash while its checkpoint ran leaves that log in place.
    ///
    /// Without this, the open would go on at the older header and blame the missing segment.
    func damagedCurrentSlot(storePath: String) -> StrataError? {
        guard let skipped = skippedSlot else { return nil }
        let header = self.header
        let needed = header.checkpoint.firstLogSegment
        guard !CommitLog.segmentExists(storePath: storePath, sequence: needed) else { return nil }
        return StrataError(
            .corruptFile,
            "header slot \(skipped.slot) (page \(skipped.slot)) of \(path) is damaged, and it is the current header: "
                + "\(skipped.problem). The other slot (page \(header.slot), generation \(header.generation)) is "
                + "an older checkpoint whose log (segment \(needed)) the current one removed; restore the file from a "
                + "copy or salvage what its pages hold",
            path: path, offset: skipped.slot * UInt64(pageSize))
    }
}

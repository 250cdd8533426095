import CLibUV
#if canImport(Glibc)
import Glibc
#endif

extension StreamConnection {
    /// Bytes handed to the kernel that have not reached the peer yet: for TCP those not yet
    /// acknowledged (unsent, or in flight), for a Unix socket those the peer has not read. A
    /// client that reads makes it shrink, even while libuv's own queue (``queuedWriteBytes``)
    /// waits for the kernel's buffer to drain by half before it hands over more; nil when the
    /// connection is closing or the kernel does not say.
    @_spi(StrataDaemon) public var kernelUndeliveredBytes: Int? {
        handle.loop.preconditionInEventLoop()
        guard !handle.isClosing else { return nil }
        var descriptor: uv_os_fd_t = -1
        guard uv_fileno(handle.handle, &descriptor) == 0 else { return nil }
        var bytes: Int32 = 0
        guard ioctl(descriptor, UInt(TIOCOUTQ), &bytes) == 0 else { return nil }
        return Int(bytes)
    }
}

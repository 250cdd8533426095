// Types named as the Swift-on-server libraries a service imports beside Strata name theirs
// (swift-nio, swift-log, OpenCombine), and as an application's own models often are.
// The public-surface test imports this module beside Strata and names each type unqualified: it
// compiles only while Strata exports none of these names.

/// swift-nio's event loop protocol.
public struct EventLoop {}
/// swift-nio's event loop errors.
public struct EventLoopError {}
/// swift-nio's event loop group.
public struct EventLoopGroup {}
/// swift-nio's future.
public struct EventLoopFuture {}
/// swift-nio's scheduled task.
public struct Scheduled {}
/// swift-nio's time amount.
public struct TimeAmount {}
/// swift-nio's channel.
public struct Channel {}
/// swift-nio's byte buffer.
public struct ByteBuffer {}
/// OpenCombine's (and ReactiveSwift's) scheduler protocol.
public struct Scheduler {}
/// swift-log's logger.
public struct Logger {}
/// An application's own model and storage names, which Strata's engine used to export.
public struct Value {}
/// An application's row type.
public struct Row {}
/// An application's table type.
public struct Table {}
/// An application's instruction type.
public struct Instruction {}
/// An application's snapshot type.
public struct Snapshot {}
/// An application's store type.
public struct Store {}
/// An application's changeset type.
public struct Changeset {}
/// An application's transaction type.
public struct Transaction {}
/// An application's timestamp type.
public struct Timestamp {}
/// An application's column type.
public struct Column {}
/// An application's link type.
public struct Link {}

import Foundation

/// Records what an app reads and writes, as Realm Swift's `Events`: get it from
/// ``Realm/events`` when the configuration has an ``EventConfiguration``.
///
/// ```swift
/// var configuration = Realm.Configuration(objectTypes: [Dog.self])
/// configuration.eventConfiguration = EventConfiguration(metadata: ["user": "ada"])
/// let realm = try Realm(configuration: configuration)
///
/// let scope = realm.events!.beginScope(activity: "adopt")
/// let dog = realm.objects(Dog.self).where { $0.name == "Rex" }.first   // a "read" event
/// try realm.write { dog?.age += 1 }                                   // a "write" event
/// scope.commit { error in print(error ?? "recorded") }               // written durably
/// ```
///
/// Events go to a separate durable store next to the Realm's file, one row per event with
/// `activity`, `event` (`"read"`, `"write"` or a custom type), `data` (JSON), `timestamp` and one
/// column per metadata key, in Realm's shape.
public struct Events {
    let realm: Realm

    /// Starts recording the Realm's reads and writes until the scope is committed or cancelled.
    ///
    /// Several scopes may be active at once; each records everything. The scope captures the
    /// metadata in effect now.
    public func beginScope(activity: String) -> Scope {
        realm.verifyThread()
        let recorder = EventRecorder(activity: activity, metadata: currentMetadata)
        realm.state.eventRecorders.append(recorder)
        return Scope(state: realm.state, configuration: realm.configuration, recorder: recorder)
    }

    /// Writes one custom event at once, outside any scope: `data` is stored verbatim (it need
    /// not be JSON). `completion` gets the error, if writing failed.
    public func recordEvent(activity: String, eventType: String, data: String?,
                            completion: ((Swift.Error?) -> Void)? = nil) {
        realm.verifyThread()
        let row = EventRow(activity: activity, event: eventType, data: data, timestamp: Date(), metadata: currentMetadata)
        Events.write([row], configuration: realm.configuration, completion: completion)
    }

    /// Writes one custom event (see ``recordEvent(activity:eventType:data:completion:)``).
    ///
    /// - Throws: the error of writing the event store.
    public func recordEvent(activity: String, eventType: String, data: String?,
                            isolation: isolated (any Actor)? = #isolation) async throws {
        var failure: Swift.Error?
        recordEvent(activity: activity, eventType: eventType, data: data) { failure = $0 }
        if let failure { throw failure }
    }

    /// Replaces the metadata stored with events; scopes begun from now on use it.
    public func updateMetadata(_ newMetadata: [String: String]) {
        realm.verifyThread()
        realm.state.eventMetadata = newMetadata
    }

    private var currentMetadata: [String: String] {
        realm.state.eventMetadata ?? realm.configuration.eventConfiguration?.metadata ?? [:]
    }

    /// Writes rows durably and reports the outcome to `completion`, or else to the
    /// configuration's error handler.
    static func write(_ rows: [EventRow], configuration: Realm.Configuration, completion: ((Swift.Error?) -> Void)?) {
        var failure: Swift.Error?
        do {
            try EventStore.for(configuration).write(rows)
            configuration.eventConfiguration?.logger?(.debug, "recorded \(rows.count) event(s)")
        } catch {
            failure = Realm.Error.wrap(error)
            configuration.eventConfiguration?.logger?(.error, "could not record events: \(error)")
        }
        if let completion {
            completion(failure)
        } else if let failure {
            configuration.eventConfiguration?.errorHandler?(failure)
        }
    }
}

extension Events {
    /// A recording of reads and writes, as Realm Swift's `Events.Scope`: begun with
    /// ``Events/beginScope(activity:)``, ended with ``commit(completion:)`` or ``cancel()``.
    /// Releasing an active scope cancels it.
    public final class Scope {
        private weak var state: RealmState?
        private let configuration: Realm.Configuration
        private let recorder: EventRecorder
        /// Whether the scope is still recording.
        public private(set) var isActive = true

        init(state: RealmState, configuration: Realm.Configuration, recorder: EventRecorder) {
            self.state = state
            self.configuration = configuration
            self.recorder = recorder
        }

        deinit {
            if isActive { end() }
        }

        /// The metadata stored with this scope's events (captured when it began).
        public var metadata: [String: String] { recorder.metadata }

        /// Ends the scope and writes its events durably; `completion` gets the error, if any.
        ///
        /// Traps on a scope that is no longer active, as Realm does.
        public func commit(completion: ((Swift.Error?) -> Void)? = nil) {
            precondition(isActive, "Cannot commit an event scope that is no longer active")
            end()
            Events.write(recorder.finish(), configuration: configuration, completion: completion)
        }

        /// Ends the scope and writes its events durably.
        ///
        /// - Throws: the error of writing the event store.
        public func commit(isolation: isolated (any Actor)? = #isolation) async throws {
            var failure: Swift.Error?
            commit { failure = $0 }
            if let failure { throw failure }
        }

        /// Ends the scope and discards what it recorded.
        ///
        /// Traps on a scope that is no longer active, as Realm does.
        public func cancel() {
            precondition(isActive, "Cannot cancel an event scope that is no longer active")
            end()
        }

        private func end() {
            isActive = false
            state?.eventRecorders.removeAll { $0 === recorder }
        }
    }
}

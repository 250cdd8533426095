import Hummingbird
import HummingbirdWebSocket
import Logging

/// The settings of the example service.
public struct LiveQueryServiceConfiguration: Sendable {
    /// The address the HTTP server listens on.
    public var address: BindAddress
    /// How many messages a live query may queue for a slow WebSocket client before the connection
    /// is closed (see ``LiveQueryFeed``).
    public var maxPendingMessages: Int

    /// Creates the settings.
    public init(address: BindAddress = .hostname("127.0.0.1", port: 8080), maxPendingMessages: Int = 256) {
        self.address = address
        self.maxPendingMessages = maxPendingMessages
    }
}

/// The example service: the REST routes (``TodoRoutes``) and the live-query WebSocket
/// (``LiveQueryRoute``) over `store`, on an HTTP/1 server that upgrades to WebSocket.
public func buildApplication(
    store: TodoStore, configuration: LiveQueryServiceConfiguration = .init(),
    logger: Logger = Logger(label: "live-query")
) -> some ApplicationProtocol {
    let router = Router(context: BasicWebSocketRequestContext.self)
    TodoRoutes(store: store).register(on: router)
    LiveQueryRoute(store: store, maxPendingMessages: configuration.maxPendingMessages).register(on: router)
    return Application(
        router: router,
        server: .http1WebSocketUpgrade(webSocketRouter: router),
        configuration: ApplicationConfiguration(address: configuration.address, serverName: "live-query"),
        logger: logger
    )
}

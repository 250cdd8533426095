import ArgumentParser
import Foundation
import StrataEventd
import StrataTerminal

/// `strata-eventd ctl …`: a client of a running daemon for operators, so that no one needs
/// netcat: `stats`, `ping`, `version`, `alerts`, `send` (events from NDJSON) and `subscribe` (a
/// live query, as a table that refreshes in place on a terminal, NDJSON when piped).
struct ControlCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "strata-eventd ctl", abstract: "Talk to a running strata-eventd: stats, ping, version, alerts, send, subscribe.",
        subcommands: [Stats.self, Ping.self, Version.self, Alerts.self, Send.self, Subscribe.self])

    /// Where the daemon is: its TCP address (the daemon's own `--host`/`--port`), or its Unix
    /// socket.
    struct Connection: ParsableArguments {
        @Option(help: "The daemon's address.") var host = "127.0.0.1"
        @Option(help: "The daemon's TCP port.") var port = 7400
        @Option(name: .customLong("socket"), help: "Connect to this Unix socket instead of TCP.") var socketPath: String?
        @Option(help: "The daemon's token file (its --auth-token-file), for TCP.") var authTokenFile: String?

        /// A connected client; a daemon that cannot be reached is one line.
        func connect() throws -> LineClient {
            do {
                if let socketPath { return try LineClient(unixPath: socketPath, timeout: .seconds(30)) }
                let token = try authTokenFile.map { try AccessControl.readToken(path: $0) }
                return try LineClient(host: host, port: port, timeout: .seconds(30), authToken: token)
            } catch let error as LineClientError {
                throw ControlError("the daemon refused the token: \(error)")
            } catch {
                let place = socketPath ?? "\(host):\(port)"
                let reason = (error as? POSIXError).map { String(cString: strerror($0.code.rawValue)) } ?? "\(error)"
                throw ControlError("cannot reach strata-eventd at \(place): \(reason)")
            }
        }

        /// Sends one request and returns its reply line.
        func request(_ line: String) throws -> String {
            let client = try connect()
            defer { client.close() }
            client.send(line: line)
            guard let reply = client.readLine() else { throw ControlError("the daemon closed the connection") }
            return try checked(reply)
        }
    }

    struct Stats: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the daemon's counters (the stats reply).")
        @OptionGroup var connection: Connection

        func run() throws {
            let reply = try connection.request(#"{"stats":true}"#)
            Terminal.print(Terminal.isOutputTerminal ? pretty(reply, field: "stats") : reply)
        }
    }

    struct Ping: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Check that the daemon answers; print the round trip.")
        @OptionGroup var connection: Connection

        func run() throws {
            let started = ContinuousClock.now
            _ = try connection.request(#"{"ping":true}"#)
            let elapsed = ContinuousClock.now - started
            let microseconds = Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12
            Terminal.print(String(format: "pong in %.2f ms", microseconds / 1_000))
        }
    }

    struct Version: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the daemon's and its protocol's versions.")
        @OptionGroup var connection: Connection

        func run() throws {
            Terminal.print(pretty(try connection.request(#"{"version":true}"#), field: "version"))
        }
    }

    struct Alerts: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the newest alerts, as a table or NDJSON.")
        @OptionGroup var connection: Connection
        @Option(help: "Only this rule's alerts.") var rule: String?
        @Option(help: "At most this many (1–1,000).") var limit = 20

        func run() throws {
            var options: [String: Any] = ["limit": limit]
            if let rule { options["rule"] = rule }
            let reply = try connection.request(json(["alerts": options]))
            let alerts = (object(reply)["alerts"] as? [[String: Any]]) ?? []
            let columns = ["createdAt", "rule", "eventId", "id"]
            if Terminal.isOutputTerminal {
                let rows = alerts.map { alert in columns.map { "\(alert[$0] ?? "")" } }
                for line in TableRenderer(columns: columns, width: Terminal.width).lines(rows) { Terminal.print(line) }
                Terminal.print("(\(alerts.count) alert\(alerts.count == 1 ? "" : "s"))")
            } else {
                for alert in alerts { Terminal.print(json(alert)) }
            }
        }
    }

    struct Send: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Send events, one JSON object per line, and wait for every reply.",
            discussion: "Prints how many were acknowledged (and how many were duplicates); each refused line is printed "
                + "on standard error with the daemon's reason, and the exit status is 1 when any was refused.")
        @OptionGroup var connection: Connection
        @Argument(help: "An NDJSON file of events (default: standard input).") var file: String?

        func run() throws {
            guard let data = Terminal.readInput(path: file) else { throw ControlError("cannot read '\(file ?? "")'") }
            let lines = data.split(separator: UInt8(ascii: "\n")).map { String(decoding: $0, as: UTF8.self) }
                .filter { !$0.trimmingCharacters(in: .whitespaces).isEmpty }
            let client = try connection.connect()
            defer { client.close() }
            // Replies come in line order; a reader thread takes them while the lines go out, so
            // that neither side's buffer fills up with the other waiting.
            let replies = RepliesReader(client: client, expected: lines.count)
            replies.start()
            for line in lines { client.send(line: line) }
            let received = replies.wait()
            var acknowledged = 0, duplicates = 0, refused = 0
            for (index, reply) in received.enumerated() {
                let fields = object(reply)
                if fields["ack"] != nil {
                    acknowledged += 1
                    if fields["duplicate"] as? Bool == true { duplicates += 1 }
                } else {
                    refused += 1
                    Terminal.printError("line \(index + 1): \(fields["error"] ?? reply)")
                }
            }
            let missing = lines.count - received.count
            Terminal.print("sent \(lines.count), acknowledged \(acknowledged) (\(duplicates) duplicate\(duplicates == 1 ? "" : "s")), "
                           + "refused \(refused)" + (missing > 0 ? ", \(missing) unanswered" : ""))
            if refused > 0 || missing > 0 {
                throw ControlError("\(refused + missing) of \(lines.count) events were not acknowledged")
            }
        }
    }

    struct Subscribe: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Follow a live query: a table that refreshes in place on a terminal, the protocol's NDJSON when piped.")
        @OptionGroup var connection: Connection
        @Argument(help: "The query (RQL over events), e.g. \"type == 'purchase'\".") var query: String
        @Option(help: "Sort by this key path (NAME or NAME:desc).") var sort: String?

        func run() throws {
            var request: [String: Any] = ["subscribe": query]
            if let sort {
                let descending = sort.hasSuffix(":desc")
                request["sort"] = ["keyPath": descending ? String(sort.dropLast(5)) : sort, "ascending": !descending]
            }
            let client = try connection.connect()
            defer { client.close() }
            client.send(line: json(request))
            guard let first = client.readLine() else { throw ControlError("the daemon closed the connection") }
            _ = try checked(first)
            let view = Terminal.isOutputTerminal ? LiveTable(query: query) : nil
            while let line = client.readLine() {
                guard let view else {
                    Terminal.print(line)
                    continue
                }
                if object(line)["error"] != nil { throw ControlError(line) }
                view.apply(object(line))
                view.draw()
            }
        }
    }
}

/// Reads a fixed number of reply lines on a thread of its own.
final class RepliesReader: @unchecked Sendable {
    // Safety: `lines` is written by the reading thread before `done` is signalled and read after.
    private let client: LineClient
    private let expected: Int
    private var lines: [String] = []
    private let done = DispatchSemaphore(value: 0)

    init(client: LineClient, expected: Int) {
        self.client = client
        self.expected = expected
    }

    func start() {
        Thread {
            while self.lines.count < self.expected, let line = self.client.readLine() { self.lines.append(line) }
            self.done.signal()
        }.start()
    }

    /// The replies, once all came or the daemon stopped answering.
    func wait() -> [String] {
        done.wait()
        return lines
    }
}

/// A failure of a `ctl` command: one line.
struct ControlError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// `reply`, or a ``ControlError`` when the daemon answered with an error.
private func checked(_ reply: String) throws -> String {
    if let error = object(reply)["error"] { throw ControlError("the daemon refused it: \(error)") }
    return reply
}

private func object(_ line: String) -> [String: Any] {
    (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]) ?? [:]
}

private func json(_ value: Any) -> String {
    (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys])).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
}

/// The object under `field` of a reply, indented, for a terminal.
private func pretty(_ reply: String, field: String) -> String {
    guard let value = object(reply)[field],
          let data = try? JSONSerialization.data(withJSONObject: value, options: [.prettyPrinted, .sortedKeys]) else { return reply }
    return String(decoding: data, as: UTF8.self)
}

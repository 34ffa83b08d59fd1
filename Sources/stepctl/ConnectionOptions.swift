import ArgumentParser
import CivilTime
import Glibc
import POSIXLayer
import StepJSON
import StepProtocol
import StepSocket

/// How to reach the agent; declared on the root and on every agent subcommand so `--socket`
/// works on either side of the subcommand name.
struct ConnectionOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The agent's Unix socket.", valueName: "path"),
            completion: .file())
    var socket: String?

    @Option(name: .long, help: ArgumentHelp("Seconds to wait for the agent.", valueName: "seconds"))
    var timeout: Double = 5

    func validate() throws {
        guard timeout > 0 && timeout <= 600 else { throw ValidationError("--timeout takes more than 0 and at most 600 seconds") }
        // connect(2) would report an empty path as "File name too long".
        if let socket, UnixSocketAddress(path: socket) == nil {
            throw ValidationError("--socket takes a path of 1 to \(UnixSocketAddress.maxPathBytes) bytes, got \(socket.utf8.count)")
        }
    }
}

/// `--json`, shared by agent commands.
struct OutputOptions: ParsableArguments {
    @Flag(help: "Print one JSON object instead of a table.")
    var json = false
}

/// The `--tz` forms, the same the agent takes for "time_zone".
let zoneForms = "A name such as Europe/Berlin, UTC, or an offset such as +02:00."

/// `--tz`, the same on every agent command that shows times: the zone named, else the agent's
/// own (what its "today" and days follow), else this shell's when the agent names none. Showing
/// the shell's zone by default put the agent's midnight at "18:00" the day before for a shell
/// west of it, and `activity --history` or `samples list` disagreed with `history` on the days.
struct ZoneOptions: ParsableArguments {
    /// Unconditional, like --from: a negative offset ("--tz -05:00", a form the agent takes) was
    /// read as an option, "Missing value for '--tz <zone>'".
    @Option(parsing: .unconditional,
            help: ArgumentHelp("Time zone of the days and times given and shown (default: the agent's). \(zoneForms)", valueName: "zone"))
    var tz: String?

    /// A zone that does not load is a bad command line, reported before connecting.
    func validate() throws {
        // An empty value is an unset shell variable: it loaded as UTC, so `status` and `samples
        // list` showed UTC without a word, and the commands that name it to the agent exited 1
        // with the protocol's "\"time_zone\" must not be empty".
        guard tz != "" else { throw ValidationError("--tz needs a zone, got an empty one; \(zoneForms)") }
        if let tz {
            do { _ = try LocalTimes(tz: tz) } catch { throw ValidationError("\(error)") }
        }
    }

    /// --tz's zone, else the zone the agent named (`status`'s or a collection's `time_zone`;
    /// "local" is no name), else this shell's ($TZ, else /etc/localtime). An agent that names no
    /// zone aligns days to its own, which may not be the shell's: requests then name the shell's
    /// $TZ (`requestZone`), so the agent's buckets start at the midnights stepctl shows. Without
    /// $TZ both read /etc/localtime (an agent on another zone would have named it).
    func times(agentZone: String?) throws -> LocalTimes {
        if tz == nil, let agentZone, agentZone != "local", let agent = try? LocalTimes(agentZone: agentZone) { return agent }
        if tz == nil, let shell = TimeZoneLoader.environmentZoneName(ProcessEnvironment.current()), !shell.isEmpty,
           let named = try? LocalTimes(tz: shell) {
            return named
        }
        return try LocalTimes(tz: tz)
    }

    /// `times(agentZone:)`, asking the agent's `status` for its zone when --tz was not given
    /// (not for `json` output, which shows no local times).
    func times(asking client: UnixSocketClient, json: Bool = false) throws -> LocalTimes {
        guard tz == nil, !json else { return try LocalTimes(tz: tz) }
        let (status, _) = try call(client, .status, as: StatusResult.init(json:))
        return try times(agentZone: status.details?.timeZone)
    }

    /// `times(asking:)` and the agent's "now" (`status`'s `time`), from one `status` call:
    /// relative times ("-1h", "--last 7d") count back from the agent's clock, not this
    /// machine's. They differ under `stepd --simulate-start`, whose calendar runs on the
    /// emulated chip (a week in ten minutes), and on a board whose clock is off; "--from -1h"
    /// then asked about an hour the agent had not reached or had long left. An agent that does
    /// not send `time` is taken to share this machine's clock.
    func agentClock(asking client: UnixSocketClient) throws -> (times: LocalTimes, now: Double) {
        let (status, _) = try call(client, .status, as: StatusResult.init(json:))
        let shown = tz == nil ? try times(agentZone: status.details?.timeZone) : try LocalTimes(tz: tz)
        return (shown, status.details?.time ?? TimeText.now())
    }
}

/// The failure message stepctl prints (ArgumentParser adds "Error: " and exits 1).
struct CtlFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// A bad option value found once the command runs (a --last, a time): exit 64 like one found
/// while parsing (it exited 1, like the agent refusing something), without the usage lines of
/// the root command ArgumentParser prints for a ValidationError thrown from `run()`.
struct UsageFailure: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Connects using the subcommand's `--socket`, else the root's, else the defaults (the user's
/// socket, then the system one).
func connect(_ local: ConnectionOptions, _ root: ConnectionOptions?) throws -> UnixSocketClient {
    let timeout = local.socket != nil || root?.socket == nil ? local.timeout : (root?.timeout ?? local.timeout)
    do {
        if let path = local.socket ?? root?.socket {
            return try UnixSocketClient(path: path, timeout: timeout)
        }
        let candidates = DefaultPaths.clientSocketCandidates(environment: ProcessEnvironment.current(), uid: getuid())
        return try UnixSocketClient.connectFirst(candidates, timeout: timeout)
    } catch {
        throw CtlFailure(error.description)
    }
}

/// One call with errors turned into messages.
func call(_ client: UnixSocketClient, _ method: RPCMethod, _ params: JSONValue? = nil) throws -> JSONValue {
    do {
        return try client.call(method, params)
    } catch {
        if case .rpc(let rpc) = error, rpc.code == RPCError.permissionDeniedCode {
            throw CtlFailure("\(rpc.message)")
        }
        throw CtlFailure("\(method.rawValue): \(error.description)")
    }
}

/// One call whose answer is decoded into the result type the agent encodes it from, so a
/// drift between the two fails here with the field that differs.
func call<R>(_ client: UnixSocketClient, _ method: RPCMethod, _ params: JSONValue? = nil,
             as decode: (JSONValue) throws(ResultDecodingError) -> R) throws -> (result: R, json: JSONValue) {
    let value = try call(client, method, params)
    do {
        return (try decode(value), value)
    } catch {
        throw CtlFailure("\(method.rawValue): unexpected answer from the agent (\(error)); stepctl and stepd versions differ?")
    }
}

/// Prints `value` as one JSON line.
func printJSON(_ value: JSONValue) {
    print(value.jsonText)
}

/// The pages of one listing as one answer, so `--json` prints one object however many pages
/// the agent needed: the first page with `key`'s arrays of every page joined, and the paging
/// members (`more`, `next_anchor`, `next_start`) of the last, which say where a later call goes on.
/// (Printing each page gave several objects, or an array of pages, only once the data grew.)
func joinedPages(_ pages: [JSONValue], arrayKey key: String) -> JSONValue {
    guard var joined = pages.first?.objectValue, let last = pages.last?.objectValue else { return pages.first ?? .null }
    joined[key] = .array(pages.flatMap { $0[key]?.arrayValue ?? [] })
    for paging in ["more", "next_anchor", "next_start"] where last[paging] != nil { joined[paging] = last[paging] }
    return .object(joined)
}

import ArgumentParser
import Glibc
import StepJSON
import StepProtocol

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Show steps and activity live until Ctrl-C (steps.subscribe, activity.subscribe).",
        discussion: "With --json each update is printed as one JSON object per line.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "Report every N steps.") var updateOn: Int = 1

    func validate() throws {
        guard (1...100_000).contains(updateOn) else { throw ValidationError("--update-on must be between 1 and 100000") }
    }

    func run() throws {
        let client = try connect(connection, root.connection)
        let current = try call(client, .activityCurrent)
        _ = try call(client, .stepsSubscribe, ["update_on": .int(updateOn)])
        _ = try call(client, .activitySubscribe)
        if output.json {
            printJSON(["method": "activity.current", "params": current])
        } else {
            print("watching \(client.path): \(current["type"]?.stringValue ?? "-") (\(current["confidence"]?.stringValue ?? "-")); Ctrl-C to stop")
        }
        fflush(nil)
        while true {
            let notification: RPCNotification?
            do {
                notification = try client.nextNotification(timeout: -1)
            } catch {
                throw CtlFailure("watch ended: \(error.description)")
            }
            guard let notification else { continue }
            defer { fflush(nil) }
            if output.json {
                printJSON(notification.json)
                continue
            }
            let time = TimeText.local(TimeText.now(), format: "%H:%M:%S")
            switch notification.method {
            case RPCNotificationMethod.stepsUpdate:
                let distance = notification.params["distance_m"].map { ", \(formatNumber($0)) m" } ?? ""
                print("\(time)  steps \(formatInt(notification.params["steps"]))\(distance)")
            case RPCNotificationMethod.activityUpdate:
                print("\(time)  activity \(notification.params["type"]?.stringValue ?? "-") (\(notification.params["confidence"]?.stringValue ?? "-"))")
            default:
                print("\(time)  \(notification.method) \(notification.params.jsonText)")
            }
        }
    }
}

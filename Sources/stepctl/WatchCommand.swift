import ArgumentParser
import Glibc
import StepJSON
import StepProtocol
import StepSocket

struct WatchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch", abstract: "Show steps and activity live until Ctrl-C (steps.subscribe, activity.subscribe).",
        discussion: "With --json each update is printed as one JSON object per line.")

    @ParentCommand var root: StepCtl
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var output: OutputOptions
    @Option(help: "Report every N steps.") var updateOn: Int = 1
    @OptionGroup var zone: ZoneOptions

    func validate() throws {
        let range = StepsSubscribeParams.updateOnRange
        guard range.contains(updateOn) else {
            throw ValidationError("--update-on must be between \(range.lowerBound) and \(range.upperBound), got \(updateOn)")
        }
    }

    func run() throws {
        let client = try connect(connection, root.connection)
        let times = try zone.times(asking: client, json: output.json)
        let (current, raw) = try call(client, .activityCurrent, as: ActivityResult.init(json:))
        _ = try call(client, .stepsSubscribe, StepsSubscribeParams(updateOn: updateOn).json, as: SubscribeResult.init(json:))
        _ = try call(client, .activitySubscribe, as: SubscribeResult.init(json:))
        if output.json {
            printJSON(["method": "activity.current", "params": raw])
        } else {
            print("watching \(client.path): \(current.kind.rawValue) (\(current.confidence.rawValue)); Ctrl-C to stop")
        }
        fflush(nil)
        while true {
            let notification: RPCNotification?
            do {
                notification = try client.nextNotification(timeout: -1)
            } catch .closed {
                // The agent closes a watch that left its updates unread as well as when it stops:
                // "closed the connection" alone sent testers looking for a crash.
                throw CtlFailure("watch ended: \(ClientError.closed.description): the agent stopped, or this watch left more than 1 MiB of updates unread (its output was not read); the agent's log says which")
            } catch {
                throw CtlFailure("watch ended: \(error.description)")
            }
            guard let notification else { continue }
            defer { fflush(nil) }
            if output.json {
                printJSON(notification.json)
                continue
            }
            // Each line carries the agent's time of the update (a step update's `end`, an activity's
            // `start`), not this machine's: under `--simulate-start` the agent's calendar is elsewhere.
            switch notification.method {
            case RPCNotificationMethod.stepsUpdate:
                guard let update = try? StepsUpdateNotice(json: notification.params) else { fallthrough }
                let distance = update.distanceMeters.map { ", \(formatNumber($0)) m" } ?? ""
                print("\(times.text(update.end, .timeSecond))  steps \(update.steps)\(distance)")
            case RPCNotificationMethod.activityUpdate:
                guard let activity = try? ActivityResult(json: notification.params) else { fallthrough }
                let time = times.text(activity.start ?? TimeText.now(), .timeSecond)
                print("\(time)  activity \(activity.kind.rawValue) (\(activity.confidence.rawValue))")
            default:
                print("\(times.text(TimeText.now(), .timeSecond))  \(notification.method) \(notification.params.jsonText)")
            }
        }
    }
}

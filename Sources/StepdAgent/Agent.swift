import CivilTime
import Glibc
import Ledger
import LedgerStore
import MotionCore
import POSIXLayer
import SensorBus
import SensorChips
import StepProtocol
import StepSocket
import StepdModel

/// The running agent: one thread, one poll(2) loop. Each turn it waits for the earliest of a
/// signal, socket activity, the data-ready line, or a deadline (FIFO burst, ledger checkpoint,
/// metrics file, watchdog ping), then does what is due. The sampling path never waits on a client:
/// replies and notifications are queued per client and written when the socket is writable.
public final class Agent {
    public static let version = StepdVersion.current

    let options: AgentOptions
    let logger: EventLogger
    let notifier: SystemdNotifier
    let sensor: SensorPath
    var engine: MotionEngine
    let ledger: LedgerService
    private(set) var server: RPCServer?
    /// Where steps, activity and ledger changes go: the server's subscribers (tests attach a
    /// dispatcher alone).
    private(set) var notifications: (any AgentNotifications)?
    let signals: SignalDescriptor
    let capture: RawCapture
    let metrics: MetricsTextfile?
    let localTimeZone: TimeZoneRule
    /// `localTimeZone`'s name when it has one (nil: answers say "local").
    let localTimeZoneName: String?
    /// The calendar the ledger and the answers use: real time, or `--simulate-start`'s.
    let wallClock: AgentWallClock

    let startedMonotonic: Double
    let startedWall: Double
    /// The sensor clock when the agent started: no activity began before it.
    let sensorClockAtStart: Double
    private var stopRequested = false
    private var lastSensorService: Double?
    private var readySent = false
    /// When the watchdog condition is next checked (every half `WatchdogSec=`).
    private var nextWatchdogCheck = -Double.infinity
    private var lastStatusLine = ""
    private var lastStatusSent = -Double.infinity
    private var nextMetricsWrite: Double
    /// The activity as last reported by the engine (and to subscribers).
    private(set) var currentActivity: ActivityState
    private var stallArmed: Bool
    private var watchdogPings = 0
    private var pollBackoff = PollFailureBackoff()
    private var exitStatus = AgentExitStatus.success

    init(options: AgentOptions, logger: EventLogger, notifier: SystemdNotifier, sensor: SensorPath,
         ledger: LedgerService, localTimeZone: TimeZoneRule, signals: SignalDescriptor, metrics: MetricsTextfile?,
         wallClock: AgentWallClock = .real) {
        self.wallClock = wallClock
        self.localTimeZone = localTimeZone
        localTimeZoneName = LocalTimeZone.name(of: localTimeZone, environment: ProcessEnvironment.current())
        self.options = options
        self.logger = logger
        self.notifier = notifier
        self.sensor = sensor
        self.ledger = ledger
        self.signals = signals
        self.metrics = metrics
        engine = MotionEngine(configuration: MotionConfiguration(userHeight: options.userHeight))
        currentActivity = engine.activity
        capture = RawCapture(directory: options.stateDirectory + "/recordings",
                             maxBytes: options.recordingsMaxMegabytes * 1_048_576, logger: logger)
        startedMonotonic = SystemClocks.monotonic()
        startedWall = wallClock.now()
        sensorClockAtStart = sensor.clock.now()
        nextMetricsWrite = startedMonotonic
        stallArmed = options.stallAfter != nil
    }

    func attach(server: RPCServer) {
        self.server = server
        attach(notifications: server)
    }

    func attach(notifications: any AgentNotifications) {
        self.notifications = notifications
        ledger.onChange = { [weak notifications] change in
            notifications?.publishLedgerChange(
                reasons: LedgerChangeReason.allCases.filter(change.reasons.contains),
                latestAnchor: Int64(clamping: change.latestAnchor))
        }
    }

    // MARK: - The loop

    /// Runs until a stopping signal (`AgentSignals`); returns the process exit status.
    func run() -> Int32 {
        logger.notice("stepd \(Agent.version) running: board \(sensor.boardName), socket \(server?.socketPath ?? "-"), state \(options.stateDirectory)")
        while !stopRequested {
            turn()
        }
        shutdown()
        return exitStatus.rawValue
    }

    private func turn() {
        var descriptors: [pollfd] = [pollfd(fd: signals.fileDescriptor, events: Int16(POLLIN), revents: 0)]
        let sensorIndex: Int?
        if let fd = sensor.supervisor.pollDescriptor {
            sensorIndex = descriptors.count
            descriptors.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        } else {
            sensorIndex = nil
        }
        let serverStart = descriptors.count
        if let server { descriptors.append(contentsOf: server.pollDescriptors) }

        let timeout = millisecondsUntilNextDeadline()
        do throws(Errno) {
            _ = try pollDescriptors(&descriptors, timeoutMilliseconds: timeout, retryOnInterrupt: false)
            if pollBackoff.succeeded() { logger.notice("poll works again") }
        } catch where error == .interrupted {
            // Nothing is ready; the deadlines below are still checked.
        } catch {
            switch pollBackoff.failed(now: SystemClocks.monotonic()) {
            case .retry(let delay, let log):
                if log { logger.error("poll failed: \(error); retrying with a growing pause (up to \(pollBackoff.maxDelay) s), exiting after \(Int(pollBackoff.giveUpAfter)) s") }
                SystemClocks.sleep(seconds: delay)
            case .giveUp:
                logger.error("poll has failed for \(Int(pollBackoff.giveUpAfter)) s (\(error)): stopping so systemd restarts the agent")
                exitStatus = .failure
                stopRequested = true
            }
        }

        if descriptors[0].revents != 0 { handleSignals() }
        let lineReady = sensorIndex.map { descriptors[$0].revents & Int16(POLLIN) != 0 } ?? false
        if lineReady || sensor.isDue() { serviceSensor() }
        if let server, descriptors.count > serverStart {
            server.handle(Array(descriptors[serverStart...]))
        }
        afterTurn()
    }

    /// Seconds after the start at which the agent reports READY with the sensor still lost.
    static let readyWithoutSensorAfter = 10.0

    /// The earliest deadline, in whole milliseconds (rounded up so a deadline is never polled early).
    private func millisecondsUntilNextDeadline() -> Int32 {
        let now = SystemClocks.monotonic()
        var delay = sensor.realDelayUntilDue()
        if let tick = ledger.nextTickTime {
            delay = min(delay, (tick - wallClock.now()) / wallClock.rate)
        }
        if metrics != nil { delay = min(delay, nextMetricsWrite - now) }
        if notifier.watchdogInterval != nil { delay = min(delay, nextWatchdogCheck - now) }
        if capture.isRecording, let end = capture.deadline { delay = min(delay, end - now) }
        // Without a sensor the loop slept until the next re-probe, so READY came 16 s after the
        // start, or whenever a client or signal woke it, not after the 10 s.
        if !readySent { delay = min(delay, startedMonotonic + Self.readyWithoutSensorAfter - now) }
        delay = max(0, min(delay, 60))
        return Int32((delay * 1000).rounded(.up))
    }

    private func handleSignals() {
        for number in signals.drain() {
            guard let signal = AgentSignals.entry(for: number) else { continue }
            switch signal.response {
            case .stop:
                logger.notice("received \(signal.name): saving steps and stopping")
                stopRequested = true
            case .ignore(let reason):
                logger.info("\(signal.name) ignored: \(reason)")
            }
        }
    }

    // MARK: - Sampling path

    private func serviceSensor() {
        let now = SystemClocks.monotonic()
        if stallArmed, let stallAfter = options.stallAfter, now - startedMonotonic >= stallAfter,
           notifier.watchdogInterval == nil || watchdogPings > 0 {
            // Test hook: a hung sampling loop. Nothing below runs again, so watchdog pings stop.
            // Said on the notify socket too, so a test finds the stall in the datagram order
            // instead of timing it: no WATCHDOG=1 may follow this STATUS=.
            logger.warning("--test-stall-after reached: the sampling loop now hangs on purpose")
            notifier.notify("STATUS=sampling loop stalled on purpose (--test-stall-after)")
            stallArmed = false
            while true { sleep(3600) }
        }
        let batch = sensor.supervisor.service()
        sensor.releaseBusWhileLost()
        lastSensorService = now
        if batch.gapBeforeSamples { engine.markGap() }
        if batch.samples.isEmpty { return }

        let mapping = sensor.timeMapping(wallNow: wallClock.now(), calendarRate: wallClock.rate)
        capture.append(batch.samples)
        for sample in batch.samples {
            if let update = engine.process(sample) { apply(update, mapping: mapping) }
        }
        notifications?.publishSteps(total: engine.totalSteps, distanceMeters: engine.totalDistance)
    }

    /// Hands one engine update to the ledger and the subscribers: steps first, credited to the
    /// activity they happened in, then the activity change.
    private func apply(_ update: MotionUpdate, mapping: SensorTimeMapping) {
        if !update.stepTimes.isEmpty {
            ledger.addDetectedSteps(times: update.stepTimes.map { mapping.wall(atSensorTime: $0) },
                                    distance: update.distance, activity: currentActivity.kind, now: mapping.wallNow)
        }
        if let change = update.activityChange, change.kind != currentActivity.kind || change.confidence != currentActivity.confidence {
            let start = mapping.wall(atSensorTime: change.start)
            if change.kind != currentActivity.kind {
                logger.debug("activity: \(currentActivity.kind.rawValue) -> \(change.kind.rawValue) (\(change.confidence.rawValue))")
                ledger.activityChanged(to: change.kind, at: start, now: mapping.wallNow)
            }
            currentActivity = change
            notifications?.publishActivity(ActivityResult(kind: change.kind, confidence: change.confidence, start: start))
        }
    }

    // MARK: - Housekeeping after each turn

    private func afterTurn() {
        let now = SystemClocks.monotonic()
        let wall = wallClock.now()
        if let tick = ledger.nextTickTime, tick <= wall { ledger.tick(now: wall) }
        capture.expireIfDue(monotonicNow: now)

        if !readySent, sensor.supervisor.status.health != .lost || now - startedMonotonic >= Self.readyWithoutSensorAfter {
            // READY once the sensor is configured and the socket listens; a sensor that is absent
            // must not keep the unit "activating" forever, so after 10 s the agent reports ready
            // with the sensor lost (status says so) and keeps re-probing.
            readySent = true
            notifier.notify("READY=1\nSTATUS=\(statusLine())")
            logger.info("ready: sensor \(sensor.supervisor.status.health.rawValue)")
        }
        if let interval = notifier.watchdogInterval, now >= nextWatchdogCheck {
            // Pinged only while the sampling path runs on schedule: a loop stuck elsewhere, or a
            // sensor service that stopped being called, lets systemd restart the agent. The next
            // check is scheduled either way, so a missed ping never turns into a busy loop.
            if let last = lastSensorService, now - last <= interval / 2 + sensor.maxServiceGap {
                notifier.notify("WATCHDOG=1")
                watchdogPings += 1
            }
            nextWatchdogCheck = now + interval / 2
        }
        if readySent, now - lastStatusSent >= 5 {
            let line = statusLine()
            if line != lastStatusLine {
                notifier.notify("STATUS=\(line)")
                lastStatusLine = line
            }
            lastStatusSent = now
        }
        if let metrics, now >= nextMetricsWrite {
            metrics.write(snapshot(wallNow: wall))
            nextMetricsWrite = now + options.metricsInterval
        }
    }

    func statusLine() -> String {
        let status = sensor.supervisor.status
        let model = status.model?.rawValue ?? "no sensor"
        return "sensor \(model) \(status.health.rawValue), \(stepsToday(now: wallClock.now())) steps today, \(currentActivity.kind.rawValue)"
    }

    /// Today in local time, all sources merged, saved and unsaved steps.
    func stepsToday(now: Double) -> Int {
        guard let today = try? ledger.today(now: now, timeZone: localTimeZone) else { return 0 }
        return Int(today.steps.rounded())
    }

    // MARK: - Shutdown

    private func shutdown() {
        notifier.notify("STOPPING=1\nSTATUS=saving steps")
        if let update = engine.finish() {
            apply(update, mapping: sensor.timeMapping(wallNow: wallClock.now(), calendarRate: wallClock.rate))
        }
        ledger.shutdown(now: wallClock.now())
        capture.stop(reason: "agent stopping")
        server?.close()
        if let metrics { metrics.write(snapshot(wallNow: wallClock.now())) }
        logger.notice("stopped: \(engine.totalSteps) steps counted this run, ledger \(ledger.health.state.rawValue)")
    }

    // MARK: - Snapshots for status and metrics

    func snapshot(wallNow: Double) -> AgentSnapshot {
        let health = ledger.health
        return AgentSnapshot(
            boardName: sensor.boardName,
            sensor: sensor.supervisor.status,
            stepsToday: stepsToday(now: wallNow),
            stepsSinceStart: engine.totalSteps,
            distanceSinceStart: engine.totalDistance,
            activity: currentActivity,
            ledgerHealthState: health.state.rawValue,
            ledgerRecords: ledger.recordCount,
            ledgerBytes: ledger.diskUsageBytes,
            unsavedSteps: health.pendingSteps,
            lastCheckpointAge: ledger.lastCheckpointTime.map { wallNow - $0 },
            uptime: SystemClocks.monotonic() - startedMonotonic,
            clients: server?.clientCount ?? 0,
            recording: capture.isRecording)
    }
}

/// What status, STATUS= lines and the metrics file are made from.
struct AgentSnapshot {
    var boardName: String
    var sensor: SensorStatus
    var stepsToday: Int
    var stepsSinceStart: Int
    var distanceSinceStart: Double
    var activity: ActivityState
    var ledgerHealthState: String
    var ledgerRecords: Int
    var ledgerBytes: Int
    var unsavedSteps: Int
    var lastCheckpointAge: Double?
    var uptime: Double
    var clients: Int
    var recording: Bool
}

/// The notifications the agent publishes; `RPCServer` sends them to subscribers.
protocol AgentNotifications: AnyObject {
    func publishSteps(total: Int, distanceMeters: Double?)
    func publishActivity(_ activity: ActivityResult)
    func publishLedgerChange(reasons: [LedgerChangedNotice.Reason], latestAnchor: Int64)
}

extension RPCServer: AgentNotifications {}

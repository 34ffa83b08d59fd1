import SensorBus
import StepdModel

/// What the agent asks of the sensor path (from the board file).
public struct SensorSettings: Sendable, Equatable {
    /// nil: probe both chips.
    public var chip: ChipModel?
    /// nil: the chip's usual addresses.
    public var address: UInt8?
    public var rangeG: Int
    public var axisRemap: AxisRemap
    /// nil: the chip's default (MPU-6050 1 s, LIS3DH 0.5 s).
    public var burstInterval: Double?

    public init(chip: ChipModel? = nil, address: UInt8? = nil, rangeG: Int = 4, axisRemap: AxisRemap = .identity,
                burstInterval: Double? = nil) {
        self.chip = chip
        self.address = address
        self.rangeG = rangeG
        self.axisRemap = axisRemap
        self.burstInterval = burstInterval
    }
}

/// Samples from one `service()` call. `gapBeforeSamples`: samples were lost before these
/// (overflow, reset, lost chip); downstream must reset rather than bridge.
public struct SensorBatch: Sendable, Equatable {
    public var samples: [AccelSample]
    public var gapBeforeSamples: Bool
    public init(samples: [AccelSample] = [], gapBeforeSamples: Bool = false) {
        self.samples = samples
        self.gapBeforeSamples = gapBeforeSamples
    }
}

/// The sensor path as `status` and the metrics file show it.
public struct SensorStatus: Sendable, Equatable {
    public var model: ChipModel?
    public var address: UInt8?
    public var bus: String
    public var health: SensorHealth
    /// Samples delivered (after resampling to 40 Hz).
    public var samples: Int
    public var readErrors: Int
    public var overflows: Int
    /// Configurations after the first one.
    public var reinits: Int
    public var resetsDetected: Int
    public var gaps: Int
    /// Delivered samples per second over the last bursts; nil until two bursts have delivered.
    public var effectiveRate: Double?
    /// The chip's own sample rate as the timeline measures it on the sensor clock (nominal rate
    /// times its oscillator error); nil until measured.
    public var estimatedRate: Double?
    public var lastError: String?
    public var rangeG: Int

    public init(model: ChipModel?, address: UInt8?, bus: String, health: SensorHealth, samples: Int, readErrors: Int,
                overflows: Int, reinits: Int, resetsDetected: Int, gaps: Int, effectiveRate: Double?,
                lastError: String?, rangeG: Int, estimatedRate: Double? = nil) {
        self.estimatedRate = estimatedRate
        self.model = model
        self.address = address
        self.bus = bus
        self.health = health
        self.samples = samples
        self.readErrors = readErrors
        self.overflows = overflows
        self.reinits = reinits
        self.resetsDetected = resetsDetected
        self.gaps = gaps
        self.effectiveRate = effectiveRate
        self.lastError = lastError
        self.rangeG = rangeG
    }
}

/// A state change worth a log line.
public struct SensorEvent: Sendable, Equatable {
    public enum Kind: String, Sendable {
        case found, configured, recovered, overflow, chipReset, transientError, lost, retrying, healthChanged
    }
    public var time: Double
    public var kind: Kind
    public var message: String
}

/// Runs a chip: probe, reset, configure, FIFO bursts, and recovery. Single-threaded; the agent
/// calls `service()` when `nextServiceTime` has come or `pollDescriptor` is readable.
///
/// Recovery: a transient bus error is retried after 30 ms, up to 3 times in a row; anything
/// else (or a 4th failure) marks the sensor lost and re-probes with backoff 0.25 s doubling to
/// 8 s. A chip reset is re-initialised at once. Every discontinuity marks a gap.
public final class SensorSupervisor {
    private enum Phase: Equatable {
        case probing
        case settling
        case streaming
        case halted
    }

    /// Three retries must fit in the LIS3DH margin (0.64 s FIFO, 0.5 s bursts).
    public static let retryDelay = 0.03
    public static let maxConsecutiveTransient = 3
    public static let initialBackoff = 0.25
    public static let maxBackoff = 8.0
    /// After (re)configuration the first burst comes early, so recovery is quick.
    public static let firstBurstDelay = 0.25
    /// How long an incident keeps health at degraded.
    public static let degradedHold = 10.0
    public static let deliveredRate = 40.0

    private let bus: any I2CBus
    private let settings: SensorSettings
    private let clock: any SensorClock
    private let dataReady: GPIODataReadyLine?
    private let logger: EventLogger

    private var phase = Phase.probing
    private var due: Double
    private var driver: (any AccelerometerDriver)?
    private var timeline = SampleTimeline(rate: 40)
    private var resampler: Resampler?
    private var consecutiveFailures = 0
    private var backoff = SensorSupervisor.initialBackoff
    private var lostSince: Double?
    private var lastIncident: Double?
    /// What the last incident was, for the reason of the health change it causes.
    private var lastIncidentReason = ""
    /// The health last logged: nil until the first configuration (the "lost" before any chip
    /// answered is no fault). Compared with the health at each service, not with the health a
    /// moment before it, so the end of the degraded hold between two services is logged too.
    private var reportedHealth: SensorHealth?
    private var pendingGap = false
    private var configuredOnce = false
    private var deliveredAny = false
    private var lastBurstTime: Double?
    private var lastEdgeTime: Double?
    private var rateWindow: [(time: Double, count: Int)] = []
    private var counters = SensorStatus(model: nil, address: nil, bus: "", health: .lost, samples: 0, readErrors: 0,
                                        overflows: 0, reinits: 0, resetsDetected: 0, gaps: 0, effectiveRate: nil,
                                        lastError: nil, rangeG: 4)
    /// The most recent state changes (bounded), for tests and `status`.
    public private(set) var events: [SensorEvent] = []
    /// FIFO bursts attempted, for measurements.
    public private(set) var burstCount = 0
    /// Times the timeline had to re-anchor (two bursts in a row far off its estimate), for
    /// measurements: a timeline that follows the chip's clock never does in steady streaming.
    public private(set) var reanchors = 0

    public init(bus: any I2CBus, settings: SensorSettings, clock: any SensorClock,
                dataReady: GPIODataReadyLine?, logger: EventLogger) {
        self.bus = bus
        self.settings = settings
        self.clock = clock
        self.dataReady = dataReady
        self.logger = logger
        due = clock.now()
        counters.bus = bus.name
        counters.rangeG = settings.rangeG
        counters.model = settings.chip
        counters.address = settings.address
        let ranges = ChipModel.rangesG(for: settings.chip)
        let intervals = ChipModel.burstIntervals(for: settings.chip)
        if !ranges.contains(settings.rangeG) {
            halt("range_g \(settings.rangeG) is not supported: use \(ChipDescriptor.allowedList(ranges))")
        } else if let interval = settings.burstInterval, !intervals.contains(interval) {
            halt("burst interval \(interval) s is out of range: use \(intervals.lowerBound) to \(intervals.upperBound) s (the FIFO must not fill between bursts)")
        }
    }

    /// On the sensor clock.
    public var nextServiceTime: Double { phase == .halted ? Double.infinity : due }

    /// The data-ready line's descriptor when one is configured: poll it for POLLIN.
    public var pollDescriptor: Int32? { dataReady?.fileDescriptor }

    public var status: SensorStatus {
        var s = counters
        s.health = health(at: clock.now())
        s.effectiveRate = effectiveRate
        s.estimatedRate = timeline.estimatedRate
        return s
    }

    /// Does whatever is due: probe, configure, or read a burst. Never sleeps.
    public func service() -> SensorBatch {
        let now = clock.now()
        var edgeArrived = false
        if let line = dataReady {
            do {
                let edges = try line.readEvents()
                if let last = edges.last {
                    lastEdgeTime = last
                    edgeArrived = true
                }
            } catch {
                note(.transientError, "data-ready line: \(error)", at: now)
            }
        }
        var batch = SensorBatch()
        let interval = burstInterval
        let burstByEdge = edgeArrived && phase == .streaming
            && (driver?.descriptor.dataReadySignal == .fifoWatermark || now - (lastBurstTime ?? -Double.infinity) >= interval * 0.9)
        guard now >= due || burstByEdge else { return batch }
        switch phase {
        case .halted:
            break
        case .probing:
            probeAndReset(now: now)
        case .settling:
            configure(now: now)
        case .streaming:
            batch = burst(now: now)
        }
        reportHealthChange(now: now)
        return batch
    }

    /// Logs each health transition once, with its reason. A first configuration is no recovery
    /// from "lost" (the health before any chip answered): the "configured" line says it, and
    /// "sensor health lost -> ok" at every start read as a fault.
    private func reportHealthChange(now: Double) {
        let current = health(at: now)
        guard configuredOnce || phase == .halted else { return }
        defer { reportedHealth = current }
        guard let reported = reportedHealth, reported != current else { return }
        let reason: String
        switch current {
        case .ok: reason = "no fault for \(Int(SensorSupervisor.degradedHold)) s since: \(lastIncidentReason)"
        case .degraded, .lost: reason = lastIncidentReason
        }
        note(.healthChanged, "sensor health \(reported.rawValue) -> \(current.rawValue) (\(reason))", at: now,
             level: current == .ok ? .info : .warning)
    }

    // MARK: - Steps

    /// The board's interval, but never longer than the found chip's FIFO can hold (a board
    /// without a chip key may find a LIS3DH, whose FIFO lasts 0.64 s).
    private var burstInterval: Double {
        let chip = (driver?.model ?? settings.chip ?? .mpu6050).descriptor
        return min(settings.burstInterval ?? chip.defaultBurstInterval, chip.maxBurstInterval)
    }

    private func probeAndReset(now: Double) {
        let candidates: [(ChipModel, UInt8)]
        if let driver {
            candidates = [(driver.model, driver.address)]
        } else {
            let models = settings.chip.map { [$0] } ?? ChipModel.allCases
            candidates = models.flatMap { model in (settings.address.map { [$0] } ?? model.descriptor.addresses).map { (model, $0) } }
        }
        var wrong: SensorFault?
        var busError: I2CError?
        for (model, address) in candidates {
            do {
                let id = try readIdentity(bus: bus, model: model, address: address)
                let expected = model.descriptor.whoAmIValue
                guard id == expected else {
                    wrong = wrong ?? .wrongIdentity(model: model, address: address, found: id, expected: expected)
                    continue
                }
                let found: any AccelerometerDriver
                if let driver, driver.model == model, driver.address == address {
                    found = driver
                } else {
                    found = try makeDriver(model: model, bus: bus, address: address, rangeG: settings.rangeG,
                                           interruptOnDataReady: dataReady != nil)
                    driver = found
                    counters.model = model
                    counters.address = address
                    timeline = SampleTimeline(rate: found.sampleRate)
                    resampler = found.sampleRate == SensorSupervisor.deliveredRate ? nil : Resampler(outputRate: SensorSupervisor.deliveredRate)
                    note(.found, "\(model.displayName) found at 0x\(hex(address)) on \(bus.name)", at: now, level: .notice)
                }
                let settle = try found.startReset()
                phase = .settling
                due = now + settle
                return
            } catch let error as I2CError {
                if busError == nil || busError?.kind == .noAcknowledge { busError = error }
            } catch let fault as SensorFault {
                fail(fault, now: now)
                return
            } catch {
                fail(.invalidSettings("unexpected error \(error)"), now: now)
                return
            }
        }
        if let wrong {
            fail(wrong, now: now)
        } else if let busError, busError.kind != .noAcknowledge || candidates.count == 1 {
            fail(.bus(busError), now: now)
        } else {
            let tried = candidates.map { "\($0.0.displayName) at 0x\(hex($0.1))" }.joined(separator: ", ")
            fail(.notFound(tried: tried, bus: bus.name), now: now)
        }
    }

    private func configure(now: Double) {
        guard let driver else {
            phase = .probing
            due = now
            return
        }
        do throws(SensorFault) {
            try driver.configure()
        } catch {
            fail(error, now: now)
            return
        }
        phase = .streaming
        due = now + SensorSupervisor.firstBurstDelay
        lastBurstTime = now
        consecutiveFailures = 0
        backoff = SensorSupervisor.initialBackoff
        timeline.reset()
        resampler?.reset()
        rateWindow.removeAll()
        let rate = driver.sampleRate == SensorSupervisor.deliveredRate ? "40 Hz" : "\(Int(driver.sampleRate)) Hz resampled to 40 Hz"
        if configuredOnce {
            counters.reinits += 1
            markIncident(at: now, "chip re-initialised")
            if deliveredAny { pendingGap = true }
            let outage = lostSince.map { ", \(format(now - $0)) s after the sensor was lost" } ?? ""
            note(.recovered, "\(driver.model.displayName) re-initialised (\(rate), ±\(driver.rangeG) g)\(outage)", at: now, level: .notice)
        } else {
            note(.configured, "\(driver.model.displayName) configured: \(rate), ±\(driver.rangeG) g, FIFO bursts every \(format(burstInterval)) s", at: now, level: .notice)
        }
        configuredOnce = true
        lostSince = nil
    }

    private func burst(now: Double) -> SensorBatch {
        guard let driver else {
            phase = .probing
            due = now
            return SensorBatch()
        }
        burstCount += 1
        let result: BurstResult
        do {
            result = try driver.readBurst()
        } catch {
            counters.readErrors += 1
            counters.lastError = error.description
            markIncident(at: now, "burst read failed: \(error)")
            consecutiveFailures += 1
            if error.isTransient && consecutiveFailures <= SensorSupervisor.maxConsecutiveTransient {
                due = now + SensorSupervisor.retryDelay
                if consecutiveFailures == 1 { note(.transientError, "burst read failed, retrying: \(error)", at: now) }
            } else {
                fail(.bus(error), now: now)
            }
            return SensorBatch()
        }
        consecutiveFailures = 0
        switch result {
        case .chipReset(let reason):
            counters.resetsDetected += 1
            markIncident(at: now, "chip reset (\(reason))")
            markGap()
            note(.chipReset, "\(driver.model.displayName) reset detected (\(reason)); re-initialising", at: now, level: .warning)
            phase = .probing
            due = now
            return SensorBatch()
        case .samples(let vectors, let overflowed):
            let gapNow: Bool
            if overflowed {
                counters.overflows += 1
                markIncident(at: now, "FIFO overflow")
                markGap()
                note(.overflow, "\(driver.model.displayName) FIFO overflowed: samples lost, gap marked", at: now, level: .warning)
            }
            var times: [Double] = []
            if !vectors.isEmpty {
                // An edge is the newest sample's time only for the burst right after it was read.
                let edge = driver.descriptor.dataReadySignal == .everySample ? lastEdgeTime : nil
                lastEdgeTime = nil
                let assigned = timeline.assign(count: vectors.count, readTime: now, lastSampleTime: edge)
                times = assigned.times
                if assigned.reanchored {
                    reanchors += 1
                    // Two bursts in a row far off the timeline: timing could not be carried over,
                    // so nothing is bridged across the jump.
                    if deliveredAny { markGap(resetTimeline: false) }
                }
            }
            var samples: [AccelSample] = []
            samples.reserveCapacity(vectors.count)
            for (vector, t) in zip(vectors, times) {
                let (x, y, z) = settings.axisRemap.apply(x: vector.x, y: vector.y, z: vector.z)
                samples.append(AccelSample(t: t, x: x, y: y, z: z))
            }
            samples = resampler?.process(samples) ?? samples
            gapNow = pendingGap && !samples.isEmpty
            if !samples.isEmpty {
                pendingGap = false
                deliveredAny = true
                counters.samples += samples.count
                if gapNow { counters.gaps += 1 }
            }
            recordRate(now: now, count: samples.count)
            lastBurstTime = now
            due = now + burstInterval + readPhaseDither()
            return SensorBatch(samples: samples, gapBeforeSamples: gapNow)
        }
    }

    // MARK: - Bookkeeping

    /// Moves each read to a different point of the chip's sample period (a golden-ratio
    /// sequence, so the offsets spread evenly; steps of under one period, so they do not add
    /// up): reads that always land at the same phase, or creep through it, tell the timeline
    /// little about the chip's period, reads spread over the period pin it down.
    private func readPhaseDither() -> Double {
        let golden = 0.618_033_988_749_895
        func offset(_ k: Int) -> Double { (Double(k % 1_000_003) * golden).truncatingRemainder(dividingBy: 1) }
        let period = 1 / (driver?.sampleRate ?? SensorSupervisor.deliveredRate)
        return (offset(burstCount) - offset(burstCount - 1)) * period
    }

    private func markIncident(at now: Double, _ reason: String) {
        lastIncident = now
        lastIncidentReason = reason
    }

    private func markGap(resetTimeline: Bool = true) {
        pendingGap = true
        resampler?.reset()
        if resetTimeline { timeline.reset() }
    }

    private func fail(_ fault: SensorFault, now: Double) {
        if case .invalidSettings(let text) = fault {
            halt(text)
            return
        }
        if case .bus(let error) = fault, !error.isTransient, error.kind != .busy {
            // Missing node or no permission will not fix itself quickly, but a udev rule or a
            // modprobe might: keep retrying at the slowest rate.
            backoff = SensorSupervisor.maxBackoff
        }
        counters.lastError = fault.description
        markIncident(at: now, "sensor lost: \(fault)")
        if lostSince == nil {
            lostSince = now
            if deliveredAny { markGap() }
            note(.lost, "sensor lost: \(fault)", at: now, level: .error)
        } else {
            note(.retrying, "re-probe failed: \(fault); next try in \(format(backoff)) s", at: now, level: .debug)
        }
        phase = .probing
        due = now + backoff
        backoff = min(backoff * 2, SensorSupervisor.maxBackoff)
    }

    private func halt(_ reason: String) {
        phase = .halted
        counters.lastError = reason
        lastIncidentReason = reason
        lostSince = lostSince ?? due
        logger.error("sensor: \(reason)")
        append(SensorEvent(time: due, kind: .lost, message: reason))
    }

    private func health(at now: Double) -> SensorHealth {
        if phase == .halted || lostSince != nil || !configuredOnce { return .lost }
        if let incident = lastIncident, now - incident < SensorSupervisor.degradedHold { return .degraded }
        return .ok
    }

    private func recordRate(now: Double, count: Int) {
        rateWindow.append((now, count))
        if rateWindow.count > 12 { rateWindow.removeFirst(rateWindow.count - 12) }
    }

    /// Samples after the first burst of the window over the time the window spans.
    private var effectiveRate: Double? {
        guard rateWindow.count >= 2, let first = rateWindow.first, let last = rateWindow.last, last.time > first.time else { return nil }
        let delivered = rateWindow.dropFirst().reduce(0) { $0 + $1.count }
        return Double(delivered) / (last.time - first.time)
    }

    private func note(_ kind: SensorEvent.Kind, _ message: String, at time: Double, level: LogLevel = .warning) {
        logger.log(level, "sensor: \(message)")
        append(SensorEvent(time: time, kind: kind, message: message))
    }

    private func append(_ event: SensorEvent) {
        events.append(event)
        if events.count > 64 { events.removeFirst(events.count - 64) }
    }

    private func format(_ seconds: Double) -> String { DecimalText.fixed(seconds, decimals: 2) ?? "-" }
}

import POSIXLayer
import StepdModel

/// The Prometheus text file a node_exporter textfile collector picks up (`--metrics-dir`): written
/// whole to a temporary file and renamed over `stepd.prom`, so the collector never reads half.
/// The directory is not synced: the file is rewritten every interval and is worthless after a
/// power cut, so the extra flush would only wear the flash.
final class MetricsTextfile {
    let path: String
    private let logger: EventLogger
    private var lastFailure: Errno?

    init(directory: String, logger: EventLogger) {
        path = directory + "/stepd.prom"
        self.logger = logger
        do throws(FileSystemError) {
            try FileSystem.makeDirectories(directory)
        } catch {
            logger.warning("metrics directory \(directory): \(Errno(error.errno))")
        }
    }

    func write(_ snapshot: AgentSnapshot) {
        let text = MetricsFormat.render(snapshot)
        var failure: Errno?
        do throws(FileSystemError) {
            try FileSystem.writeAtomically(Array(text.utf8), to: path, mode: 0o644, syncDirectory: false)
        } catch {
            failure = Errno(error.errno)
        }
        // One line when writing starts failing and one when it recovers, not one per interval.
        if failure != lastFailure {
            if let failure {
                logger.warning("cannot write metrics to \(path): \(failure)")
            } else {
                logger.info("metrics file \(path) written again")
            }
            lastFailure = failure
        }
    }
}

/// The exposition text itself; pure so tests can check it line by line.
enum MetricsFormat {
    static func render(_ s: AgentSnapshot) -> String {
        var out = ""
        func metric(_ name: String, _ type: String, _ help: String, _ samples: [(labels: String, value: Double)]) {
            out += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
            for sample in samples {
                out += name + (sample.labels.isEmpty ? "" : "{\(sample.labels)}") + " " + DecimalText.shortest(sample.value) + "\n"
            }
        }
        func one(_ name: String, _ type: String, _ help: String, _ value: Double) {
            metric(name, type, help, [("", value)])
        }

        metric("stepd_info", "gauge", "Agent version, board and chip.", [(
            "version=\"\(escape(Agent.version))\",board=\"\(escape(s.boardName))\",chip=\"\(escape(s.sensor.model?.rawValue ?? "none"))\"", 1)])
        one("stepd_uptime_seconds", "gauge", "Seconds since the agent started.", s.uptime)
        one("stepd_steps_today", "gauge", "Steps today in local time, all sources merged without double counting.", Double(s.stepsToday))
        one("stepd_steps_since_start_total", "counter", "Steps this device's detector counted since the agent started.", Double(s.stepsSinceStart))
        metric("stepd_sensor_health", "gauge", "1 for the sensor's current health state.",
               SensorHealth.allCases.map { ("state=\"\($0.rawValue)\"", $0 == s.sensor.health ? 1 : 0) })
        one("stepd_sensor_samples_total", "counter", "Samples delivered by the sensor driver.", Double(s.sensor.samples))
        one("stepd_sensor_errors_total", "counter", "Failed bus transactions.", Double(s.sensor.readErrors))
        one("stepd_sensor_overflows_total", "counter", "FIFO overflows (samples lost before a burst).", Double(s.sensor.overflows))
        one("stepd_sensor_reinits_total", "counter", "Times the chip was probed and configured again.", Double(s.sensor.reinits))
        one("stepd_sensor_resets_total", "counter", "Chip resets detected (power glitches).", Double(s.sensor.resetsDetected))
        one("stepd_sensor_rate_hz", "gauge", "Effective sample rate over the last bursts.", s.sensor.effectiveRate ?? 0)
        one("stepd_sensor_chip_rate_hz", "gauge", "The chip's own sample rate as measured on the sensor clock (0 until measured).",
            s.sensor.estimatedRate ?? 0)
        metric("stepd_ledger_health", "gauge", "1 for the ledger's current health state.",
               ["ok", "degraded"].map { ("state=\"\($0)\"", $0 == s.ledgerHealthState ? 1 : 0) })
        one("stepd_ledger_records", "gauge", "Records in the ledger files.", Double(s.ledgerRecords))
        one("stepd_ledger_bytes", "gauge", "Bytes used by the ledger files.", Double(s.ledgerBytes))
        one("stepd_ledger_unsaved_steps", "gauge", "Steps counted but not yet written to the ledger.", Double(s.unsavedSteps))
        if let age = s.lastCheckpointAge {
            one("stepd_ledger_last_checkpoint_age_seconds", "gauge", "Seconds since the last ledger record was written.", age)
        }
        one("stepd_clients", "gauge", "Connected socket clients.", Double(s.clients))
        one("stepd_recording_active", "gauge", "1 while a raw recording runs.", s.recording ? 1 : 0)
        return out
    }


    private static func escape(_ text: String) -> String {
        var out = ""
        for character in text {
            switch character {
            case "\\": out += "\\\\"
            case "\"": out += "\\\""
            case "\n": out += "\\n"
            default: out.append(character)
            }
        }
        return out
    }
}

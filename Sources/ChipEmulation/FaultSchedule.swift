/// Faults to inject at given sensor times, written as `reset@30,nack@60x20,overflow@90,vanish@120+5`.
///
/// | term | effect |
/// |---|---|
/// | `reset@T` | power glitch: registers back to reset values (MPU-6050 asleep, LIS3DH powered down) |
/// | `nack@TxN` | the next N transactions are not acknowledged (ENXIO) |
/// | `eio@TxN` | the next N transactions fail with EIO |
/// | `overflow@T` | the FIFO is filled past capacity |
/// | `vanish@T+D` | the chip is gone for D seconds, and comes back powered up from reset |
/// | `wrongid@T+D` | a power glitch, and WHO_AM_I reads a sibling part's value for D seconds |
///
/// T and D are seconds on the sensor clock from when the schedule is installed; N is a count.
public struct FaultSchedule: Sendable, Equatable {
    public enum Fault: Sendable, Equatable {
        case reset
        case nack(count: Int)
        case ioError(count: Int)
        case overflow
        case vanish(duration: Double)
        case wrongIdentity(duration: Double)

        public var name: String {
            switch self {
            case .reset: return "reset"
            case .nack: return "nack"
            case .ioError: return "eio"
            case .overflow: return "overflow"
            case .vanish: return "vanish"
            case .wrongIdentity: return "wrongid"
            }
        }
    }

    public struct Entry: Sendable, Equatable {
        public var time: Double
        public var fault: Fault
        public init(time: Double, fault: Fault) {
            self.time = time
            self.fault = fault
        }
    }

    /// Sorted by time.
    public private(set) var entries: [Entry]

    public init(_ entries: [Entry]) {
        self.entries = entries.sorted { $0.time < $1.time }
    }

    public static let syntax = "comma-separated reset@T, nack@TxN, eio@TxN, overflow@T, vanish@T+D, wrongid@T+D (T, D in sensor seconds, N a count), e.g. reset@30,nack@60x20,vanish@120+5"

    public init(parsing spec: String) throws(FaultScheduleError) {
        var parsed: [Entry] = []
        let terms = spec.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
        if terms.count == 1 && terms[0].isEmpty {
            self.init([])
            return
        }
        for term in terms {
            guard !term.isEmpty else { throw FaultScheduleError(term: term, problem: "empty term (two commas in a row?)") }
            let parts = term.split(separator: "@", omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw FaultScheduleError(term: term, problem: "expected NAME@TIME") }
            let name = String(parts[0])
            let rest = String(parts[1])
            func number(_ text: Substring, _ what: String) throws(FaultScheduleError) -> Double {
                guard let value = Double(text), value.isFinite, value >= 0 else {
                    throw FaultScheduleError(term: term, problem: "\(what) '\(text)' is not a non-negative number of seconds")
                }
                return value
            }
            func count(_ text: Substring) throws(FaultScheduleError) -> Int {
                guard let value = Int(text), value > 0, value <= 1_000_000 else {
                    throw FaultScheduleError(term: term, problem: "count '\(text)' must be a whole number from 1 to 1000000")
                }
                return value
            }
            switch name {
            case "reset", "overflow":
                let time = try number(Substring(rest), "time")
                parsed.append(Entry(time: time, fault: name == "reset" ? .reset : .overflow))
            case "nack", "eio":
                let pieces = rest.split(separator: "x", omittingEmptySubsequences: false)
                guard pieces.count == 2 else { throw FaultScheduleError(term: term, problem: "\(name) needs a count: \(name)@TIMExCOUNT") }
                let time = try number(pieces[0], "time")
                let n = try count(pieces[1])
                parsed.append(Entry(time: time, fault: name == "nack" ? .nack(count: n) : .ioError(count: n)))
            case "vanish", "wrongid":
                let pieces = rest.split(separator: "+", omittingEmptySubsequences: false)
                guard pieces.count == 2 else { throw FaultScheduleError(term: term, problem: "\(name) needs a duration: \(name)@TIME+SECONDS") }
                let time = try number(pieces[0], "time")
                let duration = try number(pieces[1], "duration")
                guard duration > 0 else { throw FaultScheduleError(term: term, problem: "duration must be more than 0 s") }
                parsed.append(Entry(time: time, fault: name == "vanish" ? .vanish(duration: duration) : .wrongIdentity(duration: duration)))
            default:
                throw FaultScheduleError(term: term, problem: "unknown fault '\(name)'")
            }
        }
        self.init(parsed)
    }
}

public struct FaultScheduleError: Error, Sendable, Equatable, CustomStringConvertible {
    public var term: String
    public var problem: String
    public var description: String {
        "fault schedule term '\(term)': \(problem); use \(FaultSchedule.syntax)"
    }
}

extension Substring {
    var trimmingSpaces: String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

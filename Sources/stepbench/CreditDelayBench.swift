import MotionCore
import StepdModel
import ToolSupport

/// The credit delay of `stepbench accuracy` (and of `stepbench daily-life`'s control walk): for
/// every step the engine credits, the time of the sample being pushed when the engine emitted it
/// minus the step's own time (`CreditLog`), i.e. how late the ledger and the live socket hear of
/// it. The gate credits chains back whole once confirmed, so a walk's first steps come late;
/// long delays are attributed to the gate path that held the chain (`GateHolds`).
enum CreditDelayBench {
    enum Kind: String, CaseIterable {
        case phone = "phone three-axis"
        case wrist = "wrist three-axis"
        case magnitude = "magnitude-only"

        /// Magnitude-only when y and z are zero throughout (as the engine's windows detect it),
        /// else by the manifest's placement.
        init(samples: [AccelSample], placement: String?) {
            if samples.allSatisfy({ $0.y == 0 && $0.z == 0 }) {
                self = .magnitude
            } else {
                self = placement == "wrist" ? .wrist : .phone
            }
        }
    }

    /// Steps further apart than this (s, their own times) start a new bout.
    static let boutPause = 5.0
    /// Chains whose first step waits longer than this (s) are attributed to a gate path.
    static let longDelay = 10.0

    /// One walk's emissions and the gate's holds while it ran.
    struct Walk {
        var name: String
        var kind: Kind
        var log: CreditLog
        var holds: [GateHolds]

        init(name: String, placement: String?, samples: [AccelSample], configuration: MotionConfiguration) {
            self.name = name
            kind = Kind(samples: samples, placement: placement)
            var holds: [GateHolds] = []
            log = CreditLog.run(samples, configuration: configuration) { holds.append($0) }
            self.holds = holds
        }

        /// Delay of the first step of each bout (`boutPause`).
        var boutFirstDelays: [Double] {
            let delays = log.delays
            return log.boutStarts(pause: CreditDelayBench.boutPause).map { delays[$0] }
        }

        /// Delay of the walk's first credited step (by its own time); nil without steps.
        var firstDelay: Double? { boutFirstDelays.first }

        /// Seconds from the first credited step to the emission of the first walking state; nil
        /// without steps or without a walking state.
        var walkingSaidAfter: Double? {
            guard let first = log.stepTimes.min(), let said = log.firstReport(of: .walking) else { return nil }
            return said - first
        }

        /// The chains emitted together (one engine update each): own first step, emission time, steps.
        var chains: [(first: Double, emitted: Double, steps: Int)] {
            var result: [(first: Double, emitted: Double, steps: Int)] = []
            for (t, e) in zip(log.stepTimes, log.emittedAt) {
                if let last = result.last, last.emitted == e {
                    result[result.count - 1] = (min(last.first, t), e, last.steps + 1)
                } else {
                    result.append((t, e, 1))
                }
            }
            return result
        }

        /// Seconds each gate path held between `from` and `to` outside a run: first in the gate's
        /// order (`first`), and at all (`any`: a later path may hold under an earlier one).
        func heldSeconds(from: Double, to: Double) -> (first: [GateHolds.Path: Double], any: [GateHolds.Path: Double]) {
            var first: [GateHolds.Path: Double] = [:], any: [GateHolds.Path: Double] = [:]
            for h in holds where h.t >= from && h.t < to && !h.walking {
                first[h.first, default: 0] += GateHolds.step
                for path in h.active { any[path, default: 0] += GateHolds.step }
            }
            return (first, any)
        }
    }

    static func seconds(_ sorted: [Double], _ p: Double) -> String {
        sorted.isEmpty ? "-" : fixedDecimal(percentile(sorted, p), 1)
    }

    /// p50 / p90 / p99 / max of `values` in seconds.
    static func spread(_ values: [Double]) -> String {
        let sorted = values.sorted()
        return [0.5, 0.9, 0.99, 1].map { seconds(sorted, $0) }.joined(separator: " / ")
    }

    /// The tables of `stepbench accuracy`: delays per kind, first steps, the walking state, and the
    /// gate paths behind the long waits (`details`: every long chain).
    static func printTable(_ walks: [Walk], details: Bool) {
        guard !walks.isEmpty else { return }
        print("")
        print("credit delay (s): sample time when the engine emitted a step minus the step's own time, walking files;")
        print("first step: each walk's first credited step; bout: first step after \(fixedDecimal(boutPause, 0)) s without steps; walking said: first walking state's emission after the first credited step")
        print(column("kind", 18) + column("files", 6) + column("steps", 7) + column("all steps p50 / p90 / p99 / max", 33)
            + column("first step p50 / p90 / p99 / max", 34) + column("bouts", 6) + column("bout first p50 / p90 / max", 28)
            + "walking said p50 / p90 / max (never)")
        func row(_ label: String, _ chosen: [Walk]) {
            guard !chosen.isEmpty else { return }
            let all = chosen.flatMap { $0.log.delays }
            let firsts = chosen.compactMap(\.firstDelay)
            let bouts = chosen.flatMap(\.boutFirstDelays).sorted()
            let said = chosen.compactMap(\.walkingSaidAfter).sorted()
            let never = chosen.filter { !$0.log.stepTimes.isEmpty && $0.walkingSaidAfter == nil }.count
            print(column(label, 18) + column("\(chosen.count)", 6) + column("\(all.count)", 7) + column(spread(all), 33)
                + column(spread(firsts), 34) + column("\(bouts.count)", 6)
                + column([0.5, 0.9, 1].map { seconds(bouts, $0) }.joined(separator: " / "), 28)
                + [0.5, 0.9, 1].map { seconds(said, $0) }.joined(separator: " / ") + " (\(never))")
        }
        for kind in Kind.allCases { row(kind.rawValue, walks.filter { $0.kind == kind }) }
        row("all", walks)
        printLongWaits(walks, details: details)
    }

    /// Chains whose first step waited more than `longDelay`, by the gate path that held them longest.
    static func printLongWaits(_ walks: [Walk], details: Bool) {
        var byPath: [GateHolds.Path: (chains: Int, steps: Int, delays: [Double], held: Double)] = [:]
        var lines: [String] = []
        var total = 0
        for walk in walks {
            for chain in walk.chains where chain.emitted - chain.first > longDelay {
                let wait = chain.emitted - chain.first
                let (held, any) = walk.heldSeconds(from: chain.first, to: chain.emitted)
                let path = held.filter { $0.key != .none }.max { $0.value < $1.value }?.key ?? .none
                var entry = byPath[path] ?? (0, 0, [], 0)
                entry.chains += 1
                entry.steps += chain.steps
                entry.delays.append(wait)
                entry.held += (held[path] ?? 0) / wait
                byPath[path] = entry
                total += chain.steps
                if details {
                    let shares = GateHolds.Path.allCases.compactMap { p in
                        held[p].map { "\(p.short) \(fixedDecimal($0, 1)) s" }
                    }
                    lines.append("  " + column(String(walk.name.prefix(45)), 46) + column("at \(fixedDecimal(chain.first, 1)) s", 12)
                        + column("waited \(fixedDecimal(wait, 1)) s", 15) + column("\(chain.steps) steps", 10) + shares.joined(separator: ", ")
                        + "; held at all: " + GateHolds.Path.allCases.compactMap { p in any[p].map { "\(p.short) \(fixedDecimal($0, 1)) s" } }.joined(separator: ", "))
                }
            }
        }
        print("")
        print("chains credited more than \(fixedDecimal(longDelay, 0)) s after their first step: \(total) steps; by the gate path that held them longest (first in the gate's order, sampled every \(fixedDecimal(GateHolds.step, 1)) s)")
        guard !byPath.isEmpty else { return }
        print(column("path", 70) + column("chains", 7) + column("steps", 7) + column("wait p50 / max", 16) + "its share of the wait")
        for path in GateHolds.Path.allCases {
            guard let entry = byPath[path] else { continue }
            let sorted = entry.delays.sorted()
            print(column(path.rawValue, 70) + column("\(entry.chains)", 7) + column("\(entry.steps)", 7)
                + column(seconds(sorted, 0.5) + " / " + seconds(sorted, 1), 16)
                + fixedDecimal(100 * entry.held / Double(entry.chains), 0) + " %")
        }
        for line in lines { print(line) }
    }

    /// One line for `stepbench daily-life`'s control walk.
    static func summary(_ logs: [CreditLog]) -> String {
        let walks = logs.map { log in (log.delays, log.boutStarts(pause: boutPause)) }
        let all = walks.flatMap(\.0)
        let firsts = walks.compactMap { w in w.1.first.map { w.0[$0] } }
        return "credit delay (s) p50 / p90 / p99 / max: all \(all.count) steps \(spread(all)); first step of each walk \(spread(firsts))"
    }
}

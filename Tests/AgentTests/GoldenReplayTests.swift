import Foundation
import StepJSON
import Testing

/// Golden replays, as gpsd's regression logs: every shipped recording (and the walk built into
/// stepd) has a checked-in `Tests/Golden/NAME.analyze.json` holding the exact bytes
/// `stepctl analyze --json` prints for it from the repository root. The built stepctl binary is
/// run, so the reader, the engine and the JSON encoding are the ones users get. A change to the
/// motion core that moves a count or a segment fails here until the goldens are regenerated on
/// purpose with `scripts/update-golden` (and the diff reviewed).
@Suite struct GoldenReplayTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().path
    static let regenerate = "scripts/update-golden"

    /// One replay: the golden's name and the arguments after `stepctl analyze --json`.
    struct Replay: CustomTestStringConvertible, Sendable {
        var golden: String
        var arguments: [String]
        var testDescription: String { golden }
    }

    /// Each `Tests/Fixtures/*.csv.gz` by its path relative to the repository (so the `file`
    /// field is the same on every machine), then the embedded walk. scripts/update-golden
    /// writes the same list.
    static var replays: [Replay] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: repository + "/Tests/Fixtures")) ?? []
        return names.filter { $0.hasSuffix(".csv.gz") }.sorted().map {
            Replay(golden: String($0.dropLast(".csv.gz".count)) + ".analyze.json", arguments: ["Tests/Fixtures/" + $0])
        } + [Replay(golden: "embedded.analyze.json", arguments: ["--embedded"])]
    }

    @Test func everyFixtureHasAGoldenAndEveryGoldenAFixture() throws {
        let goldens = try FileManager.default.contentsOfDirectory(atPath: Self.repository + "/Tests/Golden")
            .filter { $0.hasSuffix(".analyze.json") }
        let expected = Self.replays.map(\.golden)
        #expect(expected.count >= 5, "the fixtures went missing: \(expected)")
        #expect(Set(goldens) == Set(expected),
                "Tests/Golden does not match the fixtures: missing \(Set(expected).subtracting(goldens).sorted()), stale \(Set(goldens).subtracting(expected).sorted()); run \(Self.regenerate)")
    }

    @Test(arguments: replays) func analyzeOutputMatchesTheGolden(_ replay: Replay) throws {
        let goldenPath = Self.repository + "/Tests/Golden/" + replay.golden
        let expected = try String(contentsOfFile: goldenPath, encoding: .utf8)
        let run = try runTool(AgentProcess.stepctlPath, ["analyze", "--json"] + replay.arguments, in: Self.repository)
        #expect(run.status == 0, "stepctl analyze --json \(replay.arguments.joined(separator: " ")) failed: \(run.error)")
        guard run.output != expected else { return }
        Issue.record("""
            stepctl analyze --json \(replay.arguments.joined(separator: " ")) differs from Tests/Golden/\(replay.golden) \
            (- golden, + now):
            \(Self.readableDiff(expected: expected, actual: run.output))
            If the change is intended, regenerate with \(Self.regenerate) and commit the goldens with it.
            """)
    }

    /// A diff of the two outputs one JSON value per line (`path = value`), where a long line of
    /// segments becomes the few fields that moved; text that is not JSON is compared as it is.
    static func readableDiff(expected: String, actual: String) -> String {
        let old = flattened(expected)
        let new = flattened(actual)
        var lines: [String] = []
        // Longest common subsequence over the lines: outputs are a few dozen lines at most.
        var table = [[Int]](repeating: [Int](repeating: 0, count: new.count + 1), count: old.count + 1)
        for i in stride(from: old.count - 1, through: 0, by: -1) {
            for j in stride(from: new.count - 1, through: 0, by: -1) {
                table[i][j] = old[i] == new[j] ? table[i + 1][j + 1] + 1 : max(table[i + 1][j], table[i][j + 1])
            }
        }
        var i = 0
        var j = 0
        while i < old.count || j < new.count {
            if i < old.count, j < new.count, old[i] == new[j] {
                i += 1
                j += 1
            } else if i < old.count, j == new.count || table[i + 1][j] >= table[i][j + 1] {
                lines.append("- " + old[i])
                i += 1
            } else {
                lines.append("+ " + new[j])
                j += 1
            }
        }
        return lines.joined(separator: "\n")
    }

    /// Each output line as `path = value` lines, prefixed by its line number when there are several.
    static func flattened(_ text: String) -> [String] {
        if text.isEmpty { return ["(no output)"] }
        let outputLines = text.split(separator: "\n", omittingEmptySubsequences: false)
        var result: [String] = []
        for (number, line) in outputLines.enumerated() where !line.isEmpty || number < outputLines.count - 1 {
            let prefix = outputLines.count > 2 ? "line \(number + 1): " : ""
            guard let value = try? JSONParser.parse(Array(line.utf8)) else {
                result.append(prefix + String(line))
                continue
            }
            flatten(value, path: "", into: &result, prefix: prefix)
        }
        if !text.hasSuffix("\n") { result.append("(no newline at end)") }
        return result
    }

    static func flatten(_ value: JSONValue, path: String, into result: inout [String], prefix: String) {
        switch value {
        case .object(let object):
            for member in object.members {
                flatten(member.value, path: path.isEmpty ? member.key : path + "." + member.key, into: &result, prefix: prefix)
            }
        case .array(let elements):
            if elements.isEmpty { result.append(prefix + path + " = []") }
            for (index, element) in elements.enumerated() {
                flatten(element, path: path + "[\(index)]", into: &result, prefix: prefix)
            }
        default:
            result.append(prefix + path + " = " + value.jsonText)
        }
    }

    /// The diff must point at the fields that moved, not reprint a long line.
    @Test func theDiffNamesTheFieldsThatMoved() {
        let golden = #"{"file":"a","steps":305,"activities":[{"start":0,"end":1.06,"type":"unknown"},{"start":1.06,"end":152.593,"type":"walking"}]}"# + "\n"
        let now = #"{"file":"a","steps":301,"activities":[{"start":0,"end":1.2,"type":"unknown"},{"start":1.2,"end":152.593,"type":"walking"}]}"# + "\n"
        let diff = Self.readableDiff(expected: golden, actual: now).split(separator: "\n").map(String.init)
        #expect(diff == [
            "- steps = 305", "+ steps = 301",
            "- activities[0].end = 1.06", "+ activities[0].end = 1.2",
            "- activities[1].start = 1.06", "+ activities[1].start = 1.2",
        ], "\(diff)")
        #expect(Self.readableDiff(expected: golden, actual: golden).isEmpty)
        #expect(Self.readableDiff(expected: "not json\n", actual: "stepctl: error\n") == "- not json\n+ stepctl: error")
        #expect(Self.readableDiff(expected: golden, actual: "") == (Self.flattened(golden).map { "- " + $0 } + ["+ (no output)"]).joined(separator: "\n"))
    }
}

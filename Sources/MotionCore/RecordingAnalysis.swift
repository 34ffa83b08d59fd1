import StepJSON
import StepdModel

/// The result of running MotionEngine over a whole recording, as `stepctl analyze` and
/// `stepbench accuracy` report it.
public struct RecordingAnalysis: Sendable, Equatable {
    public var steps: Int
    public var distance: Double
    public var stepTimes: [Double]
    /// Merged, in time order, covering the recording from its first to its last sample.
    public var activities: [ActivitySegment]

    public init(steps: Int, distance: Double, stepTimes: [Double], activities: [ActivitySegment]) {
        self.steps = steps
        self.distance = distance
        self.stepTimes = stepTimes
        self.activities = activities
    }

    public static func run(_ samples: [AccelSample], configuration: MotionConfiguration = .init()) -> RecordingAnalysis {
        var engine = MotionEngine(configuration: configuration)
        var stepTimes: [Double] = []
        var changes: [ActivityState] = []
        func take(_ update: MotionUpdate?) {
            guard let update else { return }
            stepTimes.append(contentsOf: update.stepTimes)
            if let change = update.activityChange { changes.append(change) }
        }
        for sample in samples { take(engine.process(sample)) }
        take(engine.finish())
        let first = samples.first?.t ?? 0
        let last = samples.last?.t ?? first
        return RecordingAnalysis(
            steps: engine.totalSteps, distance: engine.totalDistance, stepTimes: stepTimes,
            activities: segments(from: changes, first: first, last: last))
    }

    /// Every window's feature vector over a recording, as the engine computes it (for the
    /// trainer: `stepctl features`).
    public static func featureWindows(_ samples: [AccelSample], configuration: MotionConfiguration = .init()) -> [FeatureWindow] {
        var engine = MotionEngine(configuration: configuration)
        engine.recordedWindows = []
        for sample in samples { _ = engine.process(sample) }
        _ = engine.finish()
        return engine.recordedWindows ?? []
    }

    /// Turns activity changes (each backdated to its own start) into merged segments.
    public static func segments(from changes: [ActivityState], first: Double, last: Double) -> [ActivitySegment] {
        var result = [ActivitySegment(kind: .unknown, confidence: .low, start: first, end: last)]
        for change in changes {
            let start = min(max(change.start, first), last)
            // A backdated change overrides what was decided for the time it covers.
            while let tail = result.last, result.count > 1, tail.start >= start { result.removeLast() }
            guard var tail = result.popLast() else { break }
            if tail.kind == change.kind {
                tail.confidence = max(tail.confidence, change.confidence)
                result.append(tail)
                continue
            }
            if start > tail.start {
                tail.end = start
                result.append(tail)
                result.append(ActivitySegment(kind: change.kind, confidence: change.confidence, start: start, end: last))
            } else {
                // The first segment is replaced outright.
                result.append(ActivitySegment(kind: change.kind, confidence: change.confidence, start: tail.start, end: last))
            }
        }
        if var tail = result.popLast() {
            tail.end = last
            result.append(tail)
        }
        return result
    }

    /// The activity at time `t`, nil outside the recording.
    public func activity(at t: Double) -> ActivityKind? {
        for segment in activities where t >= segment.start && t <= segment.end { return segment.kind }
        return nil
    }

    /// The `stepctl analyze --json` object:
    /// `{"file":"...","steps":N,"distance_m":D,"activities":[{"start":s,"end":s,"type":"walking","confidence":"high"}]}`
    /// Distance is rounded to centimetres and times to milliseconds: more digits would only be noise.
    public func json(file: String) -> JSONValue {
        [
            "file": .string(file),
            "steps": .int(steps),
            "distance_m": .double(DecimalText.rounded(distance, decimals: 2)),
            "activities": .array(activities.map { segment in
                [
                    "start": .double(DecimalText.rounded(segment.start, decimals: 3)),
                    "end": .double(DecimalText.rounded(segment.end, decimals: 3)),
                    "type": .string(segment.kind.rawValue),
                    "confidence": .string(segment.confidence.rawValue),
                ]
            }),
        ]
    }

    /// `json(file:)` as one line without the trailing newline.
    public func jsonLine(file: String) -> String { json(file: file).jsonText }
}

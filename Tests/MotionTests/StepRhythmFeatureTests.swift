@testable import MotionCore
import Testing

/// `peak_interval_cv_long`: the regularity of the step candidates over the last 10 s, beside
/// `peak_interval_cv` over the 5 s window.
@Suite struct StepRhythmFeature {
    /// The window features after `seconds` of a magnitude-only 1 g signal with step candidates
    /// noted at `peaks` (s).
    private func features(seconds: Double, peaks: [Double]) -> WindowFeatures {
        var features = WindowFeatures()
        var next = 0
        var t = 0.0
        while t < seconds {
            while next < peaks.count, peaks[next] <= t {
                features.notePeak(at: peaks[next], swing: 0.3)
                next += 1
            }
            _ = features.push(x: 1, y: 0, z: 0, magnitude: 1, band: 0, at: t)
            t += 1 / WindowFeatures.rate
        }
        return features
    }

    private func value(_ name: String, _ features: WindowFeatures) throws -> Double {
        let index = try #require(WindowFeatures.names.firstIndex(of: name))
        return features.values[index]
    }

    @Test func itIsAnIntervalFeatureOfTheMagnitudeModel() throws {
        let index = try #require(WindowFeatures.names.firstIndex(of: "peak_interval_cv_long"))
        #expect(index < WindowFeatures.magnitudeCount)
    }

    @Test func aSlowWalkKeepsItsRhythmOverTenSeconds() throws {
        // 46 steps/min: 1.3 s apart, four intervals in a 5 s window, seven in 10 s.
        let walk = features(seconds: 20, peaks: stride(from: 1.0, to: 20, by: 1.3).map { $0 })
        #expect(try value("peak_interval_cv", walk) < 0.05)
        #expect(try value("peak_interval_cv_long", walk) < 0.05)
    }

    @Test func theSpanReachesBackBeforeTheWindow() throws {
        // Irregular candidates 10-5 s before the end (arm work), then a regular rhythm: the 5 s
        // window sees only the rhythm, the 10 s span both.
        let irregular: [Double] = [10.2, 10.5, 11.9, 12.1, 13.8, 14.0, 14.9]
        let regular = stride(from: 15.4, to: 20, by: 0.8).map { $0 }
        let mixed = features(seconds: 20, peaks: irregular + regular)
        #expect(try value("peak_interval_cv", mixed) < 0.05)
        #expect(try value("peak_interval_cv_long", mixed) > 0.3)
    }

    @Test func withoutTwoIntervalsThereIsNoRhythm() throws {
        let sparse = features(seconds: 20, peaks: [3, 12, 17])
        #expect(try value("peak_interval_cv_long", sparse) == 1)
    }
}

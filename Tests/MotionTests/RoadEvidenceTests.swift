import Testing
import Foundation
@testable import MotionCore
import StepdModel

/// Model-free evidence of a road opens the after-drive context (gate v2.17-V, `RoadEvidence`): a
/// model that has never seen a car leads with unknown through a drive, and the steering then
/// chains like a short walk.
@Suite struct RoadEvidenceContext {
    /// A three-axis window's features: vibration (median 1 s deviation of |a|, g) and movement
    /// across gravity (g).
    private func features(vibration: Double, horizontal: Double) -> [Double] {
        var values = [Double](repeating: 0, count: WindowFeatures.names.count)
        if let k = WindowFeatures.names.firstIndex(of: "vibration_log") { values[k] = log10(vibration) }
        if let k = WindowFeatures.names.firstIndex(of: "horizontal_rms_log") { values[k] = log10(horizontal) }
        return values
    }

    /// A held-out drive's window: 30 mg of road under a hand that sways by 100 mg.
    private var road: [Double] { features(vibration: 0.030, horizontal: 0.10) }
    /// A walk's pause: the wrist vibrates as much but turns, 500 mg across gravity.
    private var turningWrist: [Double] { features(vibration: 0.060, horizontal: 0.50) }
    /// A device at rest: 5 mg.
    private var rest: [Double] { features(vibration: 0.005, horizontal: 0.01) }

    private func evidence(_ windows: [[Double]], magnitudeOnly: Bool = false, noiseFloor: Double = 0,
                          stepping: Bool = false) -> Double? {
        var evidence = RoadEvidence()
        for (k, values) in windows.enumerated() {
            evidence.observe(values: values, magnitudeOnly: magnitudeOnly, noiseFloor: noiseFloor, stepping: stepping, at: Double(k))
        }
        return evidence.lastTime
    }

    @Test func aRoadUnderAQuietHandIsAVehicle() {
        let onset = RoadEvidence.onsetWindows
        #expect(evidence([[Double]](repeating: road, count: onset)) == Double(onset - 1))
        // Scattered through two minutes of rest they count as well.
        let scattered = (0..<RoadEvidence.span).map { $0 % 6 == 0 ? road : rest }
        #expect(evidence(scattered) != nil)
        // One short of the onset, a turning wrist, rest, |a| alone or a stepping gate: none.
        #expect(evidence([[Double]](repeating: road, count: onset - 1)) == nil)
        #expect(evidence([[Double]](repeating: turningWrist, count: 60)) == nil)
        #expect(evidence([[Double]](repeating: rest, count: 60)) == nil)
        #expect(evidence([[Double]](repeating: road, count: 60), magnitudeOnly: true) == nil)
        #expect(evidence([[Double]](repeating: road, count: 60), stepping: true) == nil)
    }

    /// The road is the one the state's onset reads (`ActivityClassifier.roadLevel`): on a sensor
    /// whose noise floor is 15 mg a road must shake above 37.5 mg.
    @Test func aRoadOnANoisySensorMustShakeAboveItsNoise() {
        #expect(evidence([[Double]](repeating: road, count: 60), noiseFloor: 0.015) == nil)
        #expect(evidence([[Double]](repeating: features(vibration: 0.045, horizontal: 0.1), count: 60), noiseFloor: 0.015) != nil)
    }

    /// The evidence counts the last two minutes: a road long gone no longer opens the context.
    @Test func aRoadLongGoneIsForgotten() {
        var evidence = RoadEvidence()
        let roadWindows = 40
        for k in 0..<(roadWindows + RoadEvidence.span) {
            evidence.observe(values: k < roadWindows ? road : rest, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: Double(k))
        }
        // The last window whose two minutes still held `onsetWindows` road windows.
        #expect(evidence.lastTime == Double(roadWindows + RoadEvidence.span - 1 - RoadEvidence.onsetWindows))
    }

    /// The activity state reads the same evidence (`ActivityClassifier.roadHoldsEvidence`).
    @Test func theEvidenceIsOpenWhileItHolds() {
        var evidence = RoadEvidence()
        for k in 0..<(RoadEvidence.onsetWindows - 1) {
            evidence.observe(values: road, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: Double(k))
        }
        #expect(!evidence.isOpen)
        evidence.observe(values: road, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: 100)
        #expect(evidence.isOpen)
    }

    /// Ten peaks 0.9 s apart with the jitter of steering (the 36-minute drive held out by activity:
    /// the model that never saw a car calls it walking at 0.9 and credited 10 steps at 119 s).
    private let wheel = [0.0, 0.85, 1.8, 2.62, 3.55, 4.4, 5.35, 6.2, 7.1, 7.95].map { 114 + $0 }

    private func steps(_ times: [Double], roadWindows: Int) -> Int {
        var gate = StepGate(parameters: .fitted)
        for k in 0..<roadWindows {
            gate.roadEvidence.observe(values: road, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: 80 + Double(k))
        }
        var credited: [Double] = []
        for t in times {
            gate.advance(to: t)
            gate.offer(t, locomotion: true, steps: &credited)
        }
        return credited.count
    }

    @Test func aRhythmAtTheWheelOfAnUnseenVehicleIsNoWalk() {
        // No automotive state and no automotive lead: the road alone holds it.
        #expect(steps(wheel, roadWindows: 30) == 0)
        // Without a road the same peaks are a 10-step bout.
        #expect(steps(wheel, roadWindows: 0) == 10)
        // A walk out of the car still counts whole.
        let walk = (0..<40).map { 114 + 0.55 * Double($0) }
        #expect(steps(walk, roadWindows: 30) == 40)
    }
}

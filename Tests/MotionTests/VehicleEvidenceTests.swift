import Testing
import Foundation
@testable import MotionCore
import StepdModel

/// The model's own vehicle evidence opens the after-drive context before the activity state's
/// onset (gate v2.16-E, `VehicleEvidence`): on imperfect hardware the state stays stationary in the
/// first minutes of a drive while the model already leads with automotive over road vibration.
@Suite struct VehicleEvidenceContext {
    /// A three-axis window's features: vibration (log10 g) and the share of movement along gravity.
    private func features(vibration: Double, vertical: Double) -> [Double] {
        var values = [Double](repeating: 0, count: WindowFeatures.names.count)
        if let k = WindowFeatures.names.firstIndex(of: "vibration_log") { values[k] = vibration }
        if let k = WindowFeatures.names.firstIndex(of: "vertical_share") { values[k] = vertical }
        return values
    }

    /// Smoothed probabilities led by `kind`.
    private func leading(_ kind: ActivityKind) -> [Double] {
        MotionModel.classes.map { $0 == kind ? 0.9 : 0.1 / Double(MotionModel.classCount - 1) }
    }

    /// The drive's windows: 44 mg of vibration, a third of it along gravity (road), led by automotive.
    private var road: [Double] { features(vibration: -1.36, vertical: 0.34) }
    /// A wrist paused on a walk: 12 mg, turning across gravity (no road).
    private var wrist: [Double] { features(vibration: -1.9, vertical: 0.05) }

    private func evidence(windows: Int, values: [Double], lead: ActivityKind = .automotive, magnitudeOnly: Bool = false,
                          noiseFloor: Double = 0, stepping: Bool = false) -> Double? {
        var evidence = VehicleEvidence()
        for k in 0..<windows {
            evidence.observe(smoothed: leading(lead), values: values, magnitudeOnly: magnitudeOnly, noiseFloor: noiseFloor,
                             stepping: stepping, at: 90 + Double(k))
        }
        return evidence.lastTime
    }

    @Test func aStretchLedByAutomotiveOverRoadIsAVehicle() {
        #expect(evidence(windows: VehicleEvidence.onsetWindows, values: road) == 90 + Double(VehicleEvidence.onsetWindows - 1))
        // A shorter lead, another class, no road, |a| alone or a gate that is stepping: none.
        #expect(evidence(windows: VehicleEvidence.onsetWindows - 1, values: road) == nil)
        #expect(evidence(windows: 20, values: road, lead: .stationary) == nil)
        #expect(evidence(windows: 20, values: wrist) == nil)
        #expect(evidence(windows: 20, values: road, magnitudeOnly: true) == nil)
        #expect(evidence(windows: 20, values: road, stepping: true) == nil)
    }

    /// The road is the one the state's onset reads (`ActivityClassifier.roadLevel`): on a sensor
    /// whose noise floor is 15 mg a road must shake above 37.5 mg, so 30 mg at a desk is no road.
    @Test func aRoadOnANoisySensorMustShakeAboveItsNoise() {
        let noisyDesk = features(vibration: log10(0.030), vertical: 0.34)
        #expect(evidence(windows: 20, values: noisyDesk) != nil)
        #expect(evidence(windows: 20, values: noisyDesk, noiseFloor: 0.015) == nil)
        #expect(evidence(windows: 20, values: road, noiseFloor: 0.015) != nil)
    }

    @Test func aBrokenLeadStartsAfresh() {
        var evidence = VehicleEvidence()
        for k in 0..<(2 * VehicleEvidence.onsetWindows - 2) {
            // Every ninth window leans stationary: never ten in a row.
            let lead: ActivityKind = k % 9 == 8 ? .stationary : .automotive
            evidence.observe(smoothed: leading(lead), values: road, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: Double(k))
        }
        #expect(evidence.lastTime == nil)
    }

    /// Ten peaks 0.9 s apart with the jitter of steering (the held-out 36-minute drive at 12.5 Hz:
    /// 7 regular peaks at 0.88 s at 114 s), every window called locomotion.
    private let wheel = [0.0, 0.85, 1.8, 2.62, 3.55, 4.4, 5.35, 6.2, 7.1, 7.95].map { 114 + $0 }

    private func steps(_ times: [Double], evidenceWindows: Int) -> Int {
        var gate = StepGate(parameters: .fitted)
        for k in 0..<evidenceWindows {
            gate.vehicleEvidence.observe(smoothed: leading(.automotive), values: road, magnitudeOnly: false, noiseFloor: 0, stepping: false, at: 100 + Double(k))
        }
        var credited: [Double] = []
        for t in times {
            gate.advance(to: t)
            gate.offer(t, locomotion: true, steps: &credited)
        }
        return credited.count
    }

    @Test func aRhythmAtTheWheelBeforeTheStateTurnsAutomotiveIsNoWalk() {
        // The state never was automotive (`vehicleTime` nil): the model's evidence alone holds it.
        #expect(steps(wheel, evidenceWindows: 14) == 0)
        // Without that evidence the same peaks are a 10-step bout.
        #expect(steps(wheel, evidenceWindows: 0) == 10)
        // A walk out of the car still counts whole.
        let walk = (0..<40).map { 114 + 0.55 * Double($0) }
        #expect(steps(walk, evidenceWindows: 14) == 40)
    }
}

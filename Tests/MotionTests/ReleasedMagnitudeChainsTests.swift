@testable import MotionCore
import Testing

/// Gate v2.19-B (`ReleasedMagnitudeChains`): on magnitude-only input the drive context, which only
/// the activity state opens there (the |a| model calls PC work a car), releases a chain that shows a
/// walk as the desk minute does; and a chain a hold released is checked over the longest regular span
/// up to the count the hold asked for, so a bout that is regular as a whole is credited whole.
@Suite struct ReleasedMagnitudeChainsTests {
    /// Typing and mousing as the rieck PC work reads (`DeskMinuteTests.typing`).
    static let typing = DeskMinuteTests.typing
    /// The chain's own windows: a walk's rhythm, called locomotion.
    static let walking = DeskMinuteTests.walking

    /// The peaks `from` s on, at `intervals`; every window (one a second from 1 s) shows a 0.7 s
    /// rhythm (dominant frequency 1 / 0.7 Hz) with a walk's smooth |a|, on a magnitude-only watch
    /// unless `threeAxis`. `vehicle`: the activity state was last automotive then. `deskBefore`: the
    /// minute before `from` is typing (a desk minute), else a still wrist.
    private func credited(_ intervals: [Double], from: Double = 61, vehicle: Double? = nil, deskBefore: Bool = false,
                          threeAxis: Bool = false, unsure: Bool = false) -> Int {
        var peaks = [from]
        for interval in intervals { peaks.append((peaks.last ?? from) + interval) }
        return creditedSteps(peaks, firstWindow: 1, unsure: unsure, closingWindow: true,
                             locomotion: { end in end > from && !unsure },
                             desk: { end in
                                 if end > from { return (Self.walking, !threeAxis, 0.9) }
                                 return (deskBefore ? Self.typing : DeskMinuteTests.still, !threeAxis, 0.1)
                             },
                             vehicleTime: vehicle) { _ in
            if threeAxis {
                var window = walkingThreeAxisWindow()
                window.stepLag = 0.7
                window.dominantFrequency = 1 / 0.7
                window.strideCorrelation = 0
                return window
            }
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.7, dominantFrequency: 1 / 0.7)
            window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
            return window
        }
    }

    /// 11 intervals of 0.7 s: a bout of 12 steps that keeps time.
    static let steady = [Double](repeating: 0.7, count: 11)
    /// The same bout not keeping time (spread 0.20, `DeskMinuteTests.unsteady`), regular for the gate.
    static let unsteady = (0..<11).map { 0.7 * DeskMinuteTests.unsteady[$0 % DeskMinuteTests.unsteady.count] }

    @Test func aBoutAfterADriveOnAMagnitudeOnlyWatchIsCreditedWhenItShowsAWalk() {
        // The state was automotive 11 s before (|a| PC work the model called a car): a steady bout is a walk.
        #expect(credited(Self.steady, vehicle: 50) == 12)
        // A bout that does not keep time (and shows no stride) still waits for 14 candidates.
        #expect(credited(Self.unsteady, vehicle: 50) == 0)
        #expect(credited(Self.unsteady + [0.7, 0.7], vehicle: 50) == 14)
        // The classifier merely unsure: 21, as before.
        #expect(credited(Self.steady, vehicle: 50, unsure: true) == 0)
        // Without a drive the steady bout is credited anyway.
        #expect(credited(Self.steady) == 12)
    }

    @Test func aThreeAxisChainAfterADriveStillWaits() {
        // Steering after a real drive: the vehicle evidence is three-axis, the hold stays.
        #expect(credited(Self.steady, vehicle: 50, threeAxis: true) == 0)
        #expect(credited(Self.steady + [0.7, 0.7], vehicle: 50, threeAxis: true) == 14)
        #expect(ReleasedMagnitudeChains.driveHolds(afterDrive: true, magnitudeOnly: false, showsWalk: true))
        #expect(!ReleasedMagnitudeChains.driveHolds(afterDrive: true, magnitudeOnly: true, showsWalk: true))
        #expect(ReleasedMagnitudeChains.driveHolds(afterDrive: true, magnitudeOnly: true, showsWalk: false))
        #expect(!ReleasedMagnitudeChains.driveHolds(afterDrive: false, magnitudeOnly: false, showsWalk: false))
    }

    /// A bout out of the desk whose first steps are lopsided (0.4 s, 1.0 s: each half stride 0.7 s, so
    /// the chain is regular as a whole) is released once its last 7 keep time; the last 7's mean alone
    /// stops the credit at the 1.0 s interval (5 of 12 steps lost); the whole span is regular.
    @Test func aReleasedBoutIsCheckedOverTheSpanItsHoldAskedFor() {
        let lopsided = [0.7, 0.7, 0.7, 0.4, 1.0] + [Double](repeating: 0.7, count: 6)
        #expect(credited(lopsided, deskBefore: true) == 12)
        #expect(credited(lopsided, vehicle: 50) == 12)
        // After a still wrist nothing held the chain: it was confirmed at its first 7 regular candidates.
        #expect(credited(lopsided) == 12)
    }

    @Test func theCheckedSpanIsTheLongestRegularOneUpToTheHold() {
        // Regular from the last 10 back: 10 of the 12 waiting (the hold asked for 14).
        #expect(ReleasedMagnitudeChains.checkedSpan(needed: 7, held: 14, waiting: 12) { $0 <= 10 } == 10)
        // Never beyond the hold's count, never below the needed one.
        #expect(ReleasedMagnitudeChains.checkedSpan(needed: 7, held: 14, waiting: 30) { _ in true } == 14)
        #expect(ReleasedMagnitudeChains.checkedSpan(needed: 7, held: 21, waiting: 20) { $0 <= 7 } == 7)
    }
}

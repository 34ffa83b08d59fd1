@testable import MotionCore
import Testing

/// Gate v2.20-V (`MovementWithoutWalk`): on a magnitude-only watch, a chain that rises out of minutes
/// of movement with no walk in them (a wrist at a steering wheel) gets the drive context's hold: 14
/// candidates unless it shows a walk.
@Suite struct MovementWithoutWalkTests {
    /// The wheel's |a| as a watch logs it: the hand moves back and forth, well above a resting wrist's spread.
    static func wheel(_ t: Double) -> Double { MagnitudeImpactsTests.armWork(period: 0.7)(t) }

    /// The peaks `from` s on, at `intervals`; every window (one a second from 1 s) is magnitude-only with
    /// a smooth |a| balance and a 0.7 s rhythm, called locomotion only once the chain starts. The wrist
    /// moves (`wheel`) from `movingFrom` s on and rests before. `walkUntil`: a walk with the gait shown
    /// (stride correlation 0.8) ran until then, 0.7 s a step from 5 s.
    private func credited(_ intervals: [Double], from: Double, movingFrom: Double = 0, walkUntil: Double? = nil) -> Int {
        var peaks: [Double] = []
        if let walkUntil { peaks = Array(stride(from: 5.0, through: walkUntil, by: 0.7)) }
        let walked = peaks.count
        peaks.append(from)
        for interval in intervals { peaks.append((peaks.last ?? from) + interval) }
        let walkEnd = walkUntil ?? -1
        let total = creditedSteps(peaks, firstWindow: 1, closingWindow: true,
                                  locomotion: { end in end > from || end <= walkEnd + 1 },
                                  magnitude: { t in t < movingFrom ? MagnitudeImpactsTests.still(t) : Self.wheel(t) }) { end in
            var window = StepGate.WindowCadence(stepCorrelation: 0.8, stepLag: 0.7, dominantFrequency: 1 / 0.7)
            window.strideCorrelation = end <= walkEnd + 1 ? 0.8 : 0
            window.armWork = MagnitudeArmWork.Evidence(balance: -0.3, swing: -0.6)
            return window
        }
        return total - walked
    }

    /// 11 intervals that do not keep time (spread 0.20, `DeskMinuteTests.unsteady`) but are regular for
    /// the gate: the wheel's loose chain of 12 peaks.
    static let loose = ReleasedMagnitudeChainsTests.unsteady
    /// The same rhythm keeping time: a walk's.
    static let steady = ReleasedMagnitudeChainsTests.steady

    @Test func aLooseChainAfterMinutesOfMovementWaitsForTheDriveContextsCount() {
        // 200 s of a moving wrist with no walk: the loose chain waits, and is credited whole at 14.
        #expect(credited(Self.loose, from: 200) == 0)
        #expect(credited(Self.loose + [0.7, 0.7], from: 200) == 14)
        // A chain that keeps time shows a walk and is credited at the regular count.
        #expect(credited(Self.steady, from: 200) == 12)
    }

    @Test func shorterMovementOrARestIsNoDrive() {
        // 100 s of movement (a walk after a minute or so of arm work), or a wrist that rested 60 s
        // before the chain: credited at the regular count.
        #expect(credited(Self.loose, from: 100) == 12)
        #expect(credited(Self.loose, from: 200, movingFrom: 140) == 12)
    }

    @Test func aWalkShowingTheGaitRestartsTheClockAndAFalseRunDoesNot() {
        // A walk that showed the gait until 100 s: 100 s later the loose chain is credited.
        #expect(credited(Self.loose, from: 200, walkUntil: 100) == 12)
        var clock = MovementWithoutWalk()
        #expect(clock.holds(magnitudeOnly: true, movingWindows: 200, at: 200))
        // A run that never showed the gait (the wheel's own false run) does not restart it.
        clock.noteRunEnd(showedGait: false, lastStep: 150)
        #expect(clock.holds(magnitudeOnly: true, movingWindows: 200, at: 200))
        clock.noteRunEnd(showedGait: true, lastStep: 150)
        #expect(!clock.holds(magnitudeOnly: true, movingWindows: 200, at: 200))
        #expect(clock.holds(magnitudeOnly: true, movingWindows: 400, at: 330))
        // Three-axis input has the activity state's own drive context.
        #expect(!MovementWithoutWalk().holds(magnitudeOnly: false, movingWindows: 400, at: 400))
    }
}

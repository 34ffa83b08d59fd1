@testable import MotionCore
import Testing

/// A walk that goes on more quietly after its run ended, giving the floor one peak per stride of
/// 1.4-1.6 s, keeps its chain within one stride of the ended walk's step period, so the run
/// restarts at that cadence (gate v2.20-F).
@Suite struct RecentStrideLinkRule {
    /// The quiet walk's window as `bangle-hughb-walk-1834` slowed to ~80 steps/min shows it after its
    /// run ended: no step repeat (the shortest lag, autocorrelation about 0.05), dominant frequency
    /// the stride rate.
    private func quietWindow() -> StepGate.WindowCadence {
        var window = StepGate.WindowCadence(stepCorrelation: 0.05, stepLag: 0.28, dominantFrequency: 0.6)
        window.strideCorrelation = 0.1
        return window
    }

    /// `walkSteps` peaks `walkPeriod` apart from 0.5 s, a 3 s pause (the run ends), then `strides`
    /// peaks 1.55 s apart (one per stride of two 0.775 s steps).
    private func peaks(walkSteps: Int, walkPeriod: Double = 0.75, strides: Int = 40) -> [Double] {
        let walk = (0..<walkSteps).map { 0.5 + walkPeriod * Double($0) }
        let resume = (walk.last ?? 0) + 3
        return walk + (0..<strides).map { resume + 1.55 * Double($0) }
    }

    private func counted(_ peaks: [Double], walkPeriod: Double = 0.75, locomotionAfterWalk: Bool = true, walkEnds: Double) -> Int {
        creditedSteps(peaks, firstWindow: 1, closingWindow: true,
                      locomotion: { t in t <= walkEnds || locomotionAfterWalk }) { end in
            end <= walkEnds ? gaitWindow(period: walkPeriod) : quietWindow()
        }
    }

    @Test func aQuietWalkRestartsAtTheCadenceItProved() {
        // 100 steps end at 74.75 s; the 40 strides from 77.75 s count two steps each (79 steps:
        // the first peak and each stride after it) once the chain has 7 regular strides.
        let steps = counted(peaks(walkSteps: 100), walkEnds: 75)
        #expect(abs(steps - (100 + 79)) <= 2)
    }

    @Test func theStridesWaitWithoutTheClassifier() {
        // The same strides while the classifier does not call their windows locomotion: each one
        // beyond `maxInterval` breaks the chain, as before.
        #expect(counted(peaks(walkSteps: 100), locomotionAfterWalk: false, walkEnds: 75) == 100)
    }

    @Test func onlyAWalkOfEightyStepsAtThatCadenceIsRemembered() {
        // A brisk walk (0.5 s steps): 1.55 s is three of its steps, not a stride.
        #expect(counted(peaks(walkSteps: 100, walkPeriod: 0.5), walkPeriod: 0.5, walkEnds: 50.5) == 100)
        // A run too short to remember (`StepGate.recentMinSteps`), or no walk at all: no chain.
        #expect(counted(peaks(walkSteps: 60), walkEnds: 45) == 60)
        #expect(counted(peaks(walkSteps: 0), walkEnds: -1) == 0)
    }

    @Test func theLinkReachesOneStrideOfTheRememberedPeriod() {
        let reach = 2 * 0.75 * (1 + StepGate.recentTolerance)
        #expect(RecentStrideLink.keepsChain(after: reach - 0.01, recentStepPeriod: 0.75, locomotion: true))
        #expect(!RecentStrideLink.keepsChain(after: reach + 0.01, recentStepPeriod: 0.75, locomotion: true))
        #expect(!RecentStrideLink.keepsChain(after: 1.55, recentStepPeriod: 0.75, locomotion: false))
        #expect(!RecentStrideLink.keepsChain(after: 1.55, recentStepPeriod: nil, locomotion: true))
    }
}

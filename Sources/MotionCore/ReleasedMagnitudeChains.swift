/// A short |a| walk after PC work the model called a car, and the steps a released chain keeps
/// (gate v2.19-B, issue 10 round 12).
///
/// Why: held out, magnitude-only 10- and 20-step bouts after a minute of the same watch's PC and desk
/// work (`stepbench accuracy`'s "bouts after daily life") were counted 54 / 76 % (person folds; 64 / 81 %
/// with the Bangle bouts). Two holds take the steps (docs/motion.md, "A walk out of a held |a| chain"):
/// - the drive context (`StepGate.afterDrive`, 14 candidates): on magnitude-only input only the
///   activity state opens it (`VehicleEvidence` and `RoadEvidence` read three axes), and the |a| model
///   calls stretches of PC work automotive for 30 windows (`rieck-l1-12hz-bw2-pc-working4`,
///   `rieck-l2-25hz-bw4-pc-working1`; held out, with 0.03 g of noise, `rieck-l2-12hz-bw2-pc-working3`
///   too). No magnitude-only watch was ever recorded in a car: on |a| this context is PC work, as the
///   desk minute is, and a chain that shows a walk the way `DeskMinute` releases it (a confident
///   classifier and a stride, or steps that keep time, `DeskMinute.showsWalk`) is a walk here too;
///   the noisy PC chain it holds shows neither (interval spread 0.38-0.48, stride correlation <= 0.51);
/// - the confirmation's span: a chain that a hold made wait is checked over the last 7 candidates once
///   released, and credited back only while its earlier intervals keep those 7's mean; a bout that
///   reached the gate 15-20 candidates long lost its first steps to a mean the last 7 set alone (the
///   12.5 Hz sample grid moves it by 10 %). Checked over the longest regular span up to the count
///   the hold asked for, the whole bout is credited when it is regular as a whole.
enum ReleasedMagnitudeChains {
    /// Whether the drive context holds a chain: `afterDrive` (the context is open), on magnitude-only
    /// input (`magnitudeOnly`) unless the chain shows a walk (`showsWalk`, read only when needed).
    static func driveHolds(afterDrive: Bool, magnitudeOnly: Bool, showsWalk: @autoclosure () -> Bool) -> Bool {
        afterDrive && !(magnitudeOnly && showsWalk())
    }

    /// The candidates a released chain is checked over: the longest span from `needed` up to `held`
    /// (the count its hold asked for, at most the `waiting` candidates) that `isRegular` accepts, else
    /// `needed`. `isRegular(n)`: whether the last n candidates are regular.
    static func checkedSpan(needed: Int, held: Int, waiting: Int, isRegular: (Int) -> Bool) -> Int {
        var span = min(held, waiting)
        while span > needed {
            if isRegular(span) { return span }
            span -= 1
        }
        return needed
    }
}

import StepdModel

extension StatusResult.Sensor {
    /// The `samples` line of `stepctl status`. Here rather than in stepctl so a test can read it.
    /// Right after start neither rate is known yet: that used to show as "at - Hz", which told
    /// a user nothing; the words say it now.
    public var samplesText: String {
        var text = "\(samples)"
        if let delivered = deliveredHz.flatMap({ DecimalText.fixed($0, decimals: 1) }) {
            text += " at \(delivered) Hz"
        } else {
            text += ", rate not measured yet"
        }
        if let measured = rateHz.flatMap({ DecimalText.fixed($0, decimals: 2) }) {
            text += ", chip measured at \(measured) Hz"
        } else if deliveredHz != nil {
            text += ", chip rate not measured yet"
        }
        return text + " (errors \(errors), overflows \(overflows), re-inits \(reinits))"
    }
}

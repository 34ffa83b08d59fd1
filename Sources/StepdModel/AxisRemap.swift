/// Maps chip axes to board axes: each board axis takes one chip axis, possibly negated.
/// Written in board files as three terms such as `["y", "-x", "z"]`.
public struct AxisRemap: Sendable, Equatable {
    public enum Axis: Int, Sendable { case x = 0, y = 1, z = 2 }
    public struct Term: Sendable, Equatable {
        public var axis: Axis
        public var negated: Bool
        public init(axis: Axis, negated: Bool) {
            self.axis = axis
            self.negated = negated
        }
    }

    public var terms: (Term, Term, Term)

    public static let identity = AxisRemap(
        terms: (Term(axis: .x, negated: false), Term(axis: .y, negated: false), Term(axis: .z, negated: false)))

    public init(terms: (Term, Term, Term)) { self.terms = terms }

    /// Parses three terms like `"x"`, `"-y"`; nil unless each chip axis is used exactly once.
    public init?(_ spec: [String]) {
        guard spec.count == 3 else { return nil }
        var parsed: [Term] = []
        for raw in spec {
            var s = Substring(raw)
            var negated = false
            if s.first == "-" { negated = true; s = s.dropFirst() } else if s.first == "+" { s = s.dropFirst() }
            switch s {
            case "x": parsed.append(Term(axis: .x, negated: negated))
            case "y": parsed.append(Term(axis: .y, negated: negated))
            case "z": parsed.append(Term(axis: .z, negated: negated))
            default: return nil
            }
        }
        guard Set(parsed.map(\.axis.rawValue)).count == 3 else { return nil }
        terms = (parsed[0], parsed[1], parsed[2])
    }

    public static func == (a: AxisRemap, b: AxisRemap) -> Bool {
        a.terms.0 == b.terms.0 && a.terms.1 == b.terms.1 && a.terms.2 == b.terms.2
    }

    @inlinable public func apply(x: Double, y: Double, z: Double) -> (Double, Double, Double) {
        let v = (x, y, z)
        func pick(_ t: Term) -> Double {
            let value: Double
            switch t.axis {
            case .x: value = v.0
            case .y: value = v.1
            case .z: value = v.2
            }
            return t.negated ? -value : value
        }
        return (pick(terms.0), pick(terms.1), pick(terms.2))
    }
}

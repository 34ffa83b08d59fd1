import Glibc
import StepdModel

/// A gradient-boosted tree ensemble as scikit-learn's HistGradientBoostingClassifier fits it:
/// the score of class k is `base[k]` plus `learningRate` times the leaf values of the trees of
/// class k (tree i belongs to class i % classCount); a node goes left when its feature is at or
/// below its threshold. The arrays come from the generated `MotionModelParameters.swift`.
struct TreeEnsemble: Sendable {
    let classCount: Int
    let featureCount: Int
    let base: [Double]
    let learningRate: Double
    let roots: [Int32]
    /// Per node: the feature index, or -1 for a leaf.
    let feature: [Int16]
    /// Per node: the threshold, or the leaf value.
    let threshold: [Double]
    let left: [Int32]
    let right: [Int32]

    /// Class probabilities (softmax of the scores) into `probabilities`; no allocation.
    func probabilities(_ x: [Double], into probabilities: inout [Double]) {
        for k in 0..<classCount { probabilities[k] = base[k] }
        for tree in 0..<roots.count {
            var node = Int(roots[tree])
            while feature[node] >= 0 {
                node = x[Int(feature[node])] <= threshold[node] ? Int(left[node]) : Int(right[node])
            }
            probabilities[tree % classCount] += learningRate * threshold[node]
        }
        var highest = -Double.infinity
        for k in 0..<classCount { highest = max(highest, probabilities[k]) }
        var sum = 0.0
        for k in 0..<classCount {
            probabilities[k] = exp(probabilities[k] - highest)
            sum += probabilities[k]
        }
        for k in 0..<classCount { probabilities[k] /= sum }
    }
}

/// The two generated classifiers: one on all features, one on the |a| features alone for
/// magnitude-only input.
struct MotionModel: Sendable {
    static let classes = MotionModelParameters.classes
    static let classCount = MotionModelParameters.classes.count

    /// Probabilities of `MotionModel.classes` for a window vector.
    static func probabilities(_ features: WindowFeatures, into out: inout [Double]) {
        let model = features.magnitudeOnly ? MotionModelParameters.magnitudeOnly : MotionModelParameters.full
        model.probabilities(features.values, into: &out)
    }

    static func index(of kind: ActivityKind) -> Int? { classes.firstIndex(of: kind) }
}

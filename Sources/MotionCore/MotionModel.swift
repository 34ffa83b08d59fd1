import Glibc
import StepJSON
import StepdModel

/// A gradient-boosted tree ensemble as scikit-learn's HistGradientBoostingClassifier fits it:
/// the score of class k is `base[k]` plus `learningRate` times the leaf values of the trees of
/// class k (tree i belongs to class i % classCount); a node goes left when its feature is at or
/// below its threshold. The arrays come from the generated `MotionModelParameters.swift`.
struct TreeEnsemble: Sendable, Equatable {
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
    /// The same trees, each laid out complete to the deepest tree's depth, for `probabilities`.
    private let complete: CompleteTrees

    init(classCount: Int, featureCount: Int, base: [Double], learningRate: Double, roots: [Int32], feature: [Int16],
         threshold: [Double], left: [Int32], right: [Int32]) {
        self.classCount = classCount
        self.featureCount = featureCount
        self.base = base
        self.learningRate = learningRate
        self.roots = roots
        self.feature = feature
        self.threshold = threshold
        self.left = left
        self.right = right
        complete = CompleteTrees(roots: roots, feature: feature, threshold: threshold, left: left, right: right)
    }

    /// Whether node arrays can be evaluated without reading out of range or looping: every index a
    /// whole number in range (`Int32(_:)` truncates, so 0.5 would become a self-loop), children
    /// after their parent, as the trainer lays trees out, and no tree deeper than `maxDepth`.
    /// `probabilities` reads the arrays unchecked on this promise; fold models are checked when
    /// read, the generated file by a test.
    static func isWellFormed(classCount: Int, featureCount: Int, roots: [Double], feature: [Double],
                             left: [Double], right: [Double]) -> Bool {
        let nodes = Double(feature.count)
        func isNode(_ index: Double) -> Bool { index >= 0 && index < nodes && index == index.rounded() }
        guard classCount > 0, roots.count % classCount == 0, roots.allSatisfy(isNode),
              [left.count, right.count].allSatisfy({ $0 == feature.count }) else { return false }
        for i in 0..<feature.count {
            guard feature[i] >= 0 else {
                if feature[i] != -1 { return false }
                continue
            }
            guard feature[i] < Double(featureCount), feature[i] == feature[i].rounded(), isNode(left[i]), isNode(right[i]),
                  left[i] > Double(i), right[i] > Double(i) else { return false }
        }
        // Levels below each node, children first (they come after their parent).
        var depth = [Int](repeating: 0, count: feature.count)
        for i in stride(from: feature.count - 1, through: 0, by: -1) where feature[i] >= 0 {
            depth[i] = 1 + max(depth[Int(left[i])], depth[Int(right[i])])
        }
        return depth.allSatisfy { $0 <= maxDepth }
    }

    /// The deepest tree `isWellFormed` accepts: the walk lays every tree out complete to the deepest
    /// one's depth (`CompleteTrees`, 2^depth leaves a tree), so one deep tree sizes them all. The
    /// trainer's trees have at most 4 leaves (depth 3 at most); 10 bounds 240 trees at 2 MB.
    static let maxDepth = 10

    /// Class probabilities (softmax of the scores) into `probabilities`; no allocation.
    func probabilities(_ x: [Double], into probabilities: inout [Double]) {
        for k in 0..<classCount { probabilities[k] = base[k] }
        precondition(x.count >= featureCount && probabilities.count >= classCount)
        complete.addScores(x, learningRate: learningRate, classCount: classCount, into: &probabilities)
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

/// A tree ensemble with every tree complete to one depth: a leaf above that depth stands for a
/// subtree whose leaves all hold its value (its splits read feature 0 and go either way to the
/// same value). Each tree is then walked `depth` times without a branch on the data (the side
/// taken is arithmetic), which the processor overlaps across trees: the trainer's trees are 2
/// deep, and walking the node arrays with a branch per node mispredicted about one branch per tree
/// (a tenth of the engine's time). Same leaves, same sums in the same order: the same scores.
private struct CompleteTrees: Sendable, Equatable {
    let depth: Int
    let treeCount: Int
    /// Per tree, its `2^depth - 1` splits in breadth-first order (children of split i at 2i + 1
    /// and 2i + 2): the feature index and the threshold (at or below goes to 2i + 1).
    let splitFeature: [Int32]
    let splitThreshold: [Double]
    /// Per tree, its `2^depth` leaf values, left to right.
    let leaves: [Double]

    /// The trees are well formed (`TreeEnsemble.isWellFormed`: children after their parent), so
    /// every walk below ends at a leaf.
    init(roots: [Int32], feature: [Int16], threshold: [Double], left: [Int32], right: [Int32]) {
        func depthBelow(_ node: Int) -> Int {
            feature[node] < 0 ? 0 : 1 + max(depthBelow(Int(left[node])), depthBelow(Int(right[node])))
        }
        let depth = roots.map { depthBelow(Int($0)) }.max() ?? 0
        let splits = (1 << depth) - 1
        var splitFeature = [Int32](repeating: 0, count: roots.count * splits)
        var splitThreshold = [Double](repeating: 0, count: roots.count * splits)
        var leaves = [Double](repeating: 0, count: roots.count * (splits + 1))
        for (tree, root) in roots.enumerated() {
            // (node in the source arrays, slot in the complete tree, level); a leaf above the last
            // level fills both children's slots with itself.
            var pending = [(node: Int(root), slot: 0, level: 0)]
            while let (node, slot, level) = pending.popLast() {
                if level == depth {
                    leaves[tree * (splits + 1) + slot - splits] = threshold[node]
                    continue
                }
                let isLeaf = feature[node] < 0
                if !isLeaf {
                    splitFeature[tree * splits + slot] = Int32(feature[node])
                    splitThreshold[tree * splits + slot] = threshold[node]
                }
                pending.append((isLeaf ? node : Int(left[node]), 2 * slot + 1, level + 1))
                pending.append((isLeaf ? node : Int(right[node]), 2 * slot + 2, level + 1))
            }
        }
        self.depth = depth
        treeCount = roots.count
        self.splitFeature = splitFeature
        self.splitThreshold = splitThreshold
        self.leaves = leaves
    }

    /// Adds `learningRate` times each tree's leaf to its class's score (tree i belongs to class
    /// i % classCount), in tree order. Unchecked reads: the layout above holds every index in range
    /// and `x` holds every feature a split names (the caller checks `featureCount`).
    @inline(__always)
    func addScores(_ x: [Double], learningRate: Double, classCount: Int, into scores: inout [Double]) {
        let splits = (1 << depth) - 1
        x.withUnsafeBufferPointer { x in
        splitFeature.withUnsafeBufferPointer { feature in
        splitThreshold.withUnsafeBufferPointer { threshold in
        leaves.withUnsafeBufferPointer { leaves in
        scores.withUnsafeMutableBufferPointer { scores in
            var treeClass = 0
            var splitBase = 0, leafBase = 0
            for _ in 0..<treeCount {
                var slot = 0
                for _ in 0..<depth {
                    let i = splitBase &+ slot
                    // 1 + (0 at or below, else 1) as a number, not a branch; NaN goes right, as `<=` says.
                    let right = unsafeBitCast(!(x[Int(feature[i])] <= threshold[i]), to: UInt8.self)
                    slot = 2 &* slot &+ 1 &+ Int(right)
                }
                scores[treeClass] += learningRate * leaves[leafBase &+ slot &- splits]
                treeClass = treeClass + 1 == classCount ? 0 : treeClass + 1
                splitBase &+= splits
                leafBase &+= splits &+ 1
            }
        }
        }
        }
        }
        }
    }
}

/// The activity classifier: one ensemble on all features, one on the |a| features alone for
/// magnitude-only input. `generated` is the shipped model (`MotionModelParameters.swift`);
/// `init(json:)` reads the same arrays from the trainer's fold files, so the cross-validation
/// scores step counts with the very engine that ships.
public struct MotionModel: Sendable, Equatable {
    public static let classes = MotionModelParameters.classes
    static let classCount = MotionModelParameters.classes.count

    let full: TreeEnsemble
    let magnitudeOnly: TreeEnsemble

    public static let generated = MotionModel(full: MotionModelParameters.full, magnitudeOnly: MotionModelParameters.magnitudeOnly)

    init(full: TreeEnsemble, magnitudeOnly: TreeEnsemble) {
        self.full = full
        self.magnitudeOnly = magnitudeOnly
    }

    /// A fold model written by scripts/train_motion_model.py:
    /// `{"classes":[...],"full":{ensemble},"magnitude_only":{ensemble}}` where an ensemble holds
    /// `base`, `learning_rate`, `roots`, `feature`, `threshold`, `left`, `right`, `feature_count`
    /// (when given, it must be the engine's feature count).
    public init(json: JSONValue) throws(MotionModelError) {
        guard let names = json["classes"]?.arrayValue?.compactMap(\.stringValue), names == Self.classes.map(\.rawValue) else {
            throw .invalid("'classes' must be \(Self.classes.map(\.rawValue))")
        }
        full = try Self.ensemble(json["full"], name: "full", features: WindowFeatures.count)
        magnitudeOnly = try Self.ensemble(json["magnitude_only"], name: "magnitude_only", features: WindowFeatures.magnitudeCount)
    }

    private static func ensemble(_ value: JSONValue?, name: String, features: Int) throws(MotionModelError) -> TreeEnsemble {
        func numbers(_ key: String) throws(MotionModelError) -> [Double] {
            guard let array = value?[key]?.arrayValue else { throw .invalid("'\(name).\(key)' must be an array of numbers") }
            var result: [Double] = []
            result.reserveCapacity(array.count)
            for item in array {
                guard let number = item.doubleValue, number.isFinite else { throw .invalid("'\(name).\(key)' must be an array of numbers") }
                result.append(number)
            }
            return result
        }
        let base = try numbers("base"), roots = try numbers("roots"), feature = try numbers("feature")
        let threshold = try numbers("threshold"), left = try numbers("left"), right = try numbers("right")
        guard let rate = value?["learning_rate"]?.doubleValue, base.count == classCount,
              [threshold.count, left.count, right.count].allSatisfy({ $0 == feature.count }) else {
            throw .invalid("'\(name)' needs \(classCount) base scores, a learning_rate and node arrays of one length")
        }
        // A model fitted on another feature vector (before a feature was added) would read the wrong
        // columns without a word: its `feature_count` must be this engine's.
        if let count = value?["feature_count"] {
            guard count.doubleValue == Double(features) else {
                throw .invalid("'\(name)' was fitted on \(count.doubleValue.map { String(Int($0)) } ?? "?") features, this engine computes \(features): refit it (scripts/train_motion_model.py)")
            }
        }
        guard TreeEnsemble.isWellFormed(classCount: classCount, featureCount: features, roots: roots,
                                        feature: feature, left: left, right: right) else {
            throw .invalid("'\(name)' has a node index or feature index out of range, or a tree deeper than \(TreeEnsemble.maxDepth) levels")
        }
        return TreeEnsemble(
            classCount: classCount, featureCount: features, base: base, learningRate: rate,
            roots: roots.map { Int32($0) }, feature: feature.map { Int16($0) }, threshold: threshold,
            left: left.map { Int32($0) }, right: right.map { Int32($0) })
    }

    /// Probabilities of `MotionModel.classes` for a window vector.
    func probabilities(_ features: WindowFeatures, into out: inout [Double]) {
        if features.magnitudeOnly {
            magnitudeOnly.probabilities(features.values, into: &out)
        } else {
            full.probabilities(features.values, into: &out)
        }
    }

    static func index(of kind: ActivityKind) -> Int? { classes.firstIndex(of: kind) }
}

public enum MotionModelError: Error, Equatable, CustomStringConvertible {
    case invalid(String)

    public var description: String {
        switch self {
        case .invalid(let why): return "not a motion model: \(why)"
        }
    }
}

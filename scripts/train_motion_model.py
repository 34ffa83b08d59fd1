#!/usr/bin/env python3
"""Train the activity classifier and regenerate Sources/MotionCore/MotionModelParameters.swift.

Usage: scripts/train_motion_model.py [--stepctl PATH] [--data DIR]... [--no-cv] [--reuse] [--keep-folds DIR]
                                     [--size ROUNDS,DEPTH,RATE]   (another model size, to measure it)
                                     [--seed N]                   (another augmentation draw, to measure the noise)
       scripts/train_motion_model.py --check      (cheap: is the generated file current?)

One command, one implementation: the feature vectors are the ones the Swift engine computes
(`stepctl features --json`), so nothing here re-implements the signal processing.

1. Installs the pinned trainer dependencies into .build/trainenv (numpy, scikit-learn) and
   re-runs itself there; builds `stepctl` (release) unless --stepctl is given.
2. Generates the augmented recordings into .build/motion-augmented (never committed): each
   development recording rotated at random (three-axis files), resampled to 12.5-100 Hz,
   quantised to 8-12 bits, with 0.01-0.03 g of noise; walks slowed and sped up; and synthetic
   hard negatives (periodic arm motion at 1-4 Hz in several directions, vehicle vibration of
   2-15 Hz, body bounce of 1-3 Hz).
3. Runs `stepctl features --json` over the real and augmented recordings and labels the
   windows from the manifests (walking/running windows without step candidates are pauses and
   are left out).
4. Fits two gradient-boosted tree ensembles (scikit-learn HistGradientBoostingClassifier): one on all
   features, one on the |a| features alone (magnitude-only input), and reports
   leave-one-person-out and leave-one-source-out folds (Oxford, Bangle, rieck, ST), and
   leave-one-activity-out folds (each daily-life, still or driving activity held out, every
   walk trained on: a seen watch in an unseen activity): for each
   fold both models are fitted without the held-out group (and without its augmented copies)
   and scored on its real windows; the fold's model is also written as JSON and the Swift engine
   (`stepbench accuracy --model`) counts the steps of the held-out recordings with it, scored as
   ../shared/tools/score_steps.py scores.
5. Writes the generated Swift file with a digest of the sources it depends on; `--check`
   recomputes the digest (no training) and fails when the file is stale.
"""
import hashlib, json, os, subprocess, sys
try:
    import numpy as np
except ImportError:  # only --check runs outside the trainer's environment
    np = None

ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
OUT = os.path.join(ROOT, 'Sources/MotionCore/MotionModelParameters.swift')
VENV = os.path.join(ROOT, '.build/trainenv')
PINNED = ['numpy==1.26.4', 'scikit-learn==1.5.2']
# The generated model depends on these: the features, the evaluator and this trainer.
DIGEST_SOURCES = ['Sources/MotionCore/WindowFeatures.swift', 'Sources/MotionCore/MotionModel.swift',
                  'Sources/MotionCore/GaitFilter.swift', 'scripts/train_motion_model.py']
CLASSES = ['stationary', 'walking', 'running', 'cycling', 'automotive', 'unknown']
LABELS = {'stationary': 'stationary', 'walking': 'walking', 'running': 'running', 'cycling': 'cycling',
          'automotive': 'automotive', 'mixed': 'unknown'}
ROUNDS, DEPTH, RATE = 40, 2, 0.25
# Features only the |a|-only model reads: the three-axis model is fitted without them, so it stays
# the same trees (export maps its columns back to the full vector). `peak_interval_cv_long` is the
# magnitude-only watch's missing cue between a slow walk and arm work (docs/motion.md, "A step
# rhythm over ten seconds").
MAGNITUDE_MODEL_ONLY = ['peak_interval_cv_long']
# Within a class, the three-axis model weighs each file by 1/sqrt(windows); the |a|-only model by
# 1/windows^0.75, so the hour-long Bangle work and drive files do not decide what a magnitude-only
# watch's arm work and slow walks look like (the 1/windows extreme costs the bouts and ~80, see there).
FULL_FILE_POWER, MAGNITUDE_FILE_POWER = 0.5, 0.75
SEED = 20261123


def digest():
    h = hashlib.sha256()
    for rel in DIGEST_SOURCES:
        with open(os.path.join(ROOT, rel), 'rb') as f:
            h.update(rel.encode() + b'\0' + f.read())
    return h.hexdigest()[:16]


def feature_digest():
    """What the cached augmented set and feature vectors depend on: the engine's sources (not the
    classifier's) and the augmentation code."""
    import inspect
    h = hashlib.sha256(str(SEED).encode())
    folder = os.path.join(ROOT, 'Sources/MotionCore')
    for name in sorted(os.listdir(folder)):
        if name not in ('MotionModelParameters.swift', 'MotionModel.swift', 'ActivityClassifier.swift'):
            with open(os.path.join(folder, name), 'rb') as f:
                h.update(name.encode() + b'\0' + f.read())
    for function in (augment, degrade, synthetic, random_rotation, write_csv, label_windows):
        h.update(inspect.getsource(function).encode())
    return h.hexdigest()[:16]


def check():
    want = digest()
    text = open(OUT).read()
    if f'sourceDigest = "{want}"' not in text:
        sys.exit(f'{os.path.relpath(OUT, ROOT)} is stale: the features, the evaluator or the trainer changed '
                 f'since it was generated (digest {want}); run scripts/train_motion_model.py')
    print(f'model file current (digest {want})')


def ensure_venv():
    if os.path.realpath(sys.prefix) == os.path.realpath(VENV):
        return
    python = os.path.join(VENV, 'bin/python')
    if not os.path.exists(python):
        subprocess.run([sys.executable, '-m', 'venv', VENV], check=True)
    subprocess.run([python, '-m', 'pip', 'install', '-q', *PINNED], check=True)
    os.execv(python, [python, os.path.abspath(__file__), *sys.argv[1:]])


# ---------------------------------------------------------------- data sets and groups

def source_of(name):
    if name.startswith('oxford-'): return 'oxford'
    if name.startswith('bangle-'): return 'bangle'
    if name.startswith('rieck-'): return 'rieck'
    if name.startswith('sthar-') or name.startswith('stmlc-'): return 'st'
    return 'synthetic'


def person_of(name):
    s = source_of(name)
    if s == 'oxford': return name.split('_')[1]
    if s == 'bangle': return 'hughb'
    if s == 'rieck': return 'rieck'
    if s == 'st': return 'st-' + name.split('-')[0]
    return 'synthetic'


def activity_of(name, label):
    """The daily-life or quiet activity of a non-walking recording, for the leave-one-activity-out
    folds: the question they answer is how a watch the model has seen behaves in an activity it
    has not (a held-out wearer brushes teeth, not the development set's dressing). Walks, runs,
    rides and the synthetic recordings are in no such fold (always trained on): ''."""
    if source_of(name) == 'synthetic' or label not in ('stationary', 'automotive', 'unknown'):
        return ''
    for part, group in [('pc-working', 'pc-work'), ('desk-working', 'desk-work'), ('dishwasher', 'dishes'),
                        ('dressing', 'dressing'), ('shoe-laces', 'shoe-laces'), ('nosteps', 'bangle-nosteps'),
                        ('hughb-work', 'bangle-work'), ('wrist-other', 'wrist-other')]:
        if part in name:
            return group
    return {'stationary': 'still', 'automotive': 'drive'}.get(label, 'other')


def read_csv(path):
    import gzip
    import numpy as np
    with gzip.open(path, 'rt') as f:
        next(f)
        data = np.loadtxt(f, delimiter=',', ndmin=2)
    return data


def write_csv(path, t, xyz):
    import gzip
    with gzip.open(path, 'wt', compresslevel=1) as f:
        f.write('t,x,y,z\n')
        for i in range(len(t)):
            f.write(f'{t[i]:.4f},{xyz[i, 0]:.4f},{xyz[i, 1]:.4f},{xyz[i, 2]:.4f}\n')


def random_rotation(rng):
    import numpy as np
    q = rng.normal(size=4)
    q /= np.linalg.norm(q)
    a, b, c, d = q
    return np.array([[a*a+b*b-c*c-d*d, 2*(b*c-a*d), 2*(b*d+a*c)],
                     [2*(b*c+a*d), a*a-b*b+c*c-d*d, 2*(c*d-a*b)],
                     [2*(b*d-a*c), 2*(c*d+a*b), a*a-b*b-c*c+d*d]])


def degrade(rng, t, xyz, magnitude_only):
    """Rotation, resampling to 12.5-100 Hz, 8-12 bit quantisation, 0.01-0.03 g of noise."""
    import numpy as np
    if not magnitude_only:
        xyz = xyz @ random_rotation(rng).T
    rate = float(rng.choice([12.5, 25.0, 50.0, 100.0]))
    native = (len(t) - 1) / max(t[-1] - t[0], 1e-9)
    if rate < native * 0.9 or rate > native * 1.1:
        drift = 1 + rng.uniform(-0.01, 0.01)            # a sensor clock off by up to 1 %
        nt = np.arange(t[0], t[-1], drift / rate)
        xyz = np.stack([np.interp(nt, t, xyz[:, k]) for k in range(3)], axis=1)
        t = nt
    noise = rng.uniform(0.01, 0.03)
    xyz = xyz + rng.normal(scale=noise, size=xyz.shape)
    if magnitude_only:
        xyz[:, 0] = np.abs(xyz[:, 0])
        xyz[:, 1:] = 0
    bits = int(rng.integers(8, 13))
    span = float(rng.choice([2.0, 4.0, 8.0]))
    step = 2 * span / 2 ** bits
    xyz = np.clip(np.round(xyz / step) * step, -span, span)
    return t, xyz


def synthetic(rng, kind, seconds=90.0, rate=25.0):
    """Hard negatives the development set lacks; labels: arm and bounce -> unknown, vehicle -> automotive."""
    import numpy as np
    t = np.arange(0, seconds, 1 / rate)
    g = random_rotation(rng) @ np.array([0.0, 0.0, 1.0])
    if kind == 'arm':
        # Periodic arm motion (brushing, stirring, wiping) at 1-4 Hz: the forearm swings about
        # an axis, so the gravity direction wobbles, plus a linear push along some direction.
        f = rng.uniform(1.0, 4.0) * (1 + 0.05 * np.sin(2 * np.pi * t / rng.uniform(5, 20)))
        phase = 2 * np.pi * np.cumsum(f) / rate
        axis = random_rotation(rng) @ np.array([1.0, 0, 0])
        angle = rng.uniform(0.05, 0.5) * np.sin(phase)
        push = rng.uniform(0.05, 0.35) * np.sin(phase + rng.uniform(0, np.pi))
        direction = random_rotation(rng) @ np.array([0, 0, 1.0])
        if rng.random() < 0.4:
            direction = g  # along gravity: the hardest case for |a|
        xyz = np.empty((len(t), 3))
        for i in range(len(t)):
            c, s = np.cos(angle[i]), np.sin(angle[i])
            v = g * c + np.cross(axis, g) * s + axis * np.dot(axis, g) * (1 - c)
            xyz[i] = v + push[i] * direction
        xyz += 0.2 * push[:, None] ** 2 * direction  # harmonics
    elif kind == 'vehicle':
        xyz = np.tile(g, (len(t), 1))
        for _ in range(int(rng.integers(2, 5))):
            f = rng.uniform(2, 15)
            xyz += rng.uniform(0.003, 0.03) * np.sin(2 * np.pi * f * t + rng.uniform(0, 6))[:, None] * (random_rotation(rng) @ np.array([0, 0, 1.0]))
        xyz += rng.normal(scale=rng.uniform(0.005, 0.03), size=xyz.shape)
        # Bumps and the slow sway of curves and braking.
        bumps = np.zeros(len(t))
        for i in np.nonzero(rng.random(len(t)) < 0.01)[0]:
            bumps[i:i + 10] += rng.uniform(-0.15, 0.15) * np.exp(-np.arange(min(10, len(t) - i)) / 3)
        xyz += bumps[:, None] * g
        xyz[:, 0] += 0.05 * np.sin(2 * np.pi * t / rng.uniform(8, 30))
    else:  # body bounce: a knee jiggling at a desk, rocking; the wrist rides along gravity
        f = rng.uniform(1.0, 3.0)
        xyz = np.tile(g, (len(t), 1)) + rng.uniform(0.03, 0.2) * np.sin(2 * np.pi * f * t)[:, None] * g
        xyz += rng.normal(scale=0.01, size=xyz.shape)
    return t, xyz


def augment(datasets, directory, rng):
    """Writes the augmented recordings; returns [(path, label, group_name)]."""
    import numpy as np
    os.makedirs(directory, exist_ok=True)
    out = []
    for data_dir, manifest in datasets:
        for name, entry in sorted(manifest.items()):
            label = LABELS.get(entry['activity'])
            if label is None:
                continue
            data = read_csv(os.path.join(data_dir, name))
            t, xyz = data[:, 0], data[:, 1:4]
            magnitude_only = bool(np.all(xyz[:, 1:] == 0))
            if len(t) > 0 and (t[-1] - t[0]) / max(len(t) - 1, 1) < 0.005:
                # 200-400 Hz phones: box-average to 100 Hz first (the engine's own bins do the same).
                k = int(round(0.01 / ((t[-1] - t[0]) / (len(t) - 1))))
                n = len(t) // k * k
                t, xyz = t[:n:k], xyz[:n].reshape(-1, k, 3).mean(axis=1)
            variants = [('aug', 1.0)]
            if label == 'walking':
                # Slowed and sped up: from a brisk walk towards ~70 steps/min and a slow one towards ~170.
                variants += [('slow', float(rng.uniform(1.15, 1.5))), ('fast', float(rng.uniform(0.62, 0.85)))]
            for tag, scale in variants:
                nt, nxyz = degrade(rng, t * scale, xyz.copy(), magnitude_only)
                path = os.path.join(directory, f'{tag}-{name}')
                write_csv(path, nt, nxyz)
                out.append((path, label, name))
    for kind, label, count in [('arm', 'unknown', 24), ('vehicle', 'automotive', 10), ('bounce', 'unknown', 8)]:
        for i in range(count):
            t, xyz = synthetic(rng, kind)
            nt, nxyz = degrade(rng, t, xyz, magnitude_only=False)
            name = f'synthetic-{kind}-{i}.csv.gz'
            path = os.path.join(directory, name)
            write_csv(path, nt, nxyz)
            out.append((path, label, name))
            if i % 3 == 0:
                # The same movement seen by a magnitude-only watch.
                m = np.linalg.norm(nxyz, axis=1)
                mo = np.zeros_like(nxyz)
                mo[:, 0] = m
                path = os.path.join(directory, 'mag-' + name)
                write_csv(path, nt, mo)
                out.append((path, label, name))
    return out


def features(stepctl, paths):
    """{path: (names, magnitude_count, windows array)} from `stepctl features --json`."""
    import numpy as np
    result = {}
    for start in range(0, len(paths), 40):
        chunk = paths[start:start + 40]
        text = subprocess.run([stepctl, 'features', '--json', *chunk], check=True, capture_output=True, text=True).stdout
        for line in text.splitlines():
            obj = json.loads(line)
            result[obj['file']] = (obj['names'], obj['magnitude_count'], np.array(obj['windows'], dtype=float).reshape(-1, 2 + len(obj['names'])))
    return result


def label_windows(windows, label, names):
    """Rows to train on: walking/running windows with no rhythm of step candidates are pauses."""
    import numpy as np
    keep = np.ones(len(windows), dtype=bool)
    if label in ('walking', 'running'):
        rate = windows[:, 2 + names.index('peak_rate')]
        keep = rate >= 0.6
    return keep


# ---------------------------------------------------------------- fitting and export

def fit(X, y, w):
    from sklearn.ensemble import HistGradientBoostingClassifier
    model = HistGradientBoostingClassifier(max_iter=ROUNDS, max_depth=DEPTH, max_leaf_nodes=2 ** DEPTH,
                                           learning_rate=RATE, early_stopping=False, random_state=SEED)
    model.fit(X, y, sample_weight=w)
    return model


def weights(y, files, power):
    """Each class weighs the same in total, and within a class each file by its windows^-power."""
    import numpy as np
    w = np.ones(len(y))
    files = np.asarray(files)
    for f in np.unique(files):
        m = files == f
        w[m] = 1 / m.sum() ** power
    for c in np.unique(y):
        m = y == c
        w[m] *= len(y) / (len(np.unique(y)) * w[m].sum())
    return w


def predict_all(model, X):
    """Probabilities over all CLASSES (a fold may lack a class)."""
    import numpy as np
    p = np.zeros((len(X), len(CLASSES)))
    p[:, model.classes_] = model.predict_proba(X)
    return p


def export(model, feature_count):
    """The fitted trees as flat node arrays; leaf values already carry the learning rate."""
    classes = [int(c) for c in model.classes_]
    base = np.ravel(model._baseline_prediction)
    full_base = [-30.0] * len(CLASSES)   # a class the fold never saw is never chosen
    per_class = [classes.index(ci) if ci in classes else None for ci in range(len(CLASSES))]
    for ci, src in enumerate(per_class):
        if src is not None:
            full_base[ci] = float(base[src])
    roots, feat, thr, left, right = [], [], [], [], []
    for iteration in model._predictors:
        for ci in range(len(CLASSES)):
            roots.append(len(feat))
            src = per_class[ci]
            if src is None:
                feat.append(-1); thr.append(0.0); left.append(-1); right.append(-1)
                continue
            nodes = iteration[src].nodes
            offset = len(feat)
            for node in nodes:
                if node['is_leaf']:
                    feat.append(-1); thr.append(float(node['value'])); left.append(-1); right.append(-1)
                else:
                    # A model fitted on some columns (`model.columns`) indexes them: back to the vector.
                    columns = getattr(model, 'columns', None)
                    index = int(node['feature_idx'])
                    feat.append(columns[index] if columns is not None else index); thr.append(float(node['num_threshold']))
                    left.append(offset + int(node['left'])); right.append(offset + int(node['right']))
    return dict(base=full_base, rate=1.0, roots=roots, feature=feat, threshold=thr, left=left, right=right,
                feature_count=feature_count)


def swift_array(values, fmt):
    items = [fmt(v) for v in values]
    lines, line = [], ''
    for item in items:
        if len(line) + len(item) + 2 > 110:
            lines.append(line.rstrip())
            line = ''
        line += item + ', '
    if line:
        lines.append(line.rstrip().rstrip(','))
    return '[\n            ' + '\n            '.join(lines) + ',\n        ]' if lines else '[]'


def swift_ensemble(name, e):
    def num(v):
        r = repr(float(v))
        return r if r not in ('inf', '-inf', 'nan') else '0'
    return f'''    static let {name} = TreeEnsemble(
        classCount: {len(CLASSES)}, featureCount: {e['feature_count']},
        base: {swift_array(e['base'], num)},
        learningRate: {e['rate']!r},
        roots: {swift_array(e['roots'], str)},
        feature: {swift_array(e['feature'], str)},
        threshold: {swift_array(e['threshold'], num)},
        left: {swift_array(e['left'], str)},
        right: {swift_array(e['right'], str)})
'''


def write_swift(full, magnitude, summary):
    classes = ', '.join('.' + c for c in CLASSES)
    text = f'''// GENERATED by scripts/train_motion_model.py from `stepctl features` vectors; do not edit.
// {summary}
// Two gradient-boosted tree ensembles ({ROUNDS} rounds x {len(CLASSES)} classes, up to {2 ** DEPTH} leaves): `full` on the
// {full['feature_count']} window features but {', '.join(MAGNITUDE_MODEL_ONLY)}, `magnitudeOnly` on the {magnitude['feature_count']} |a| features.
import StepdModel

enum MotionModelParameters {{
    /// Digest of the sources the model depends on (`scripts/train_motion_model.py --check`).
    static let sourceDigest = "{digest()}"
    static let classes: [ActivityKind] = [{classes}]
{swift_ensemble('full', full)}{swift_ensemble('magnitudeOnly', magnitude)}}}
'''
    with open(OUT, 'w') as f:
        f.write(text)


def model_json(pair, mcount, count):
    """The two fitted models in the JSON form `MotionModel(json:)` reads (`stepbench --model`)."""
    model = {'classes': CLASSES, 'full': export(pair[0], count), 'magnitude_only': export(pair[1], mcount)}
    for part in model.values():
        if isinstance(part, dict):
            part['learning_rate'] = part.pop('rate')
    return model


def fold_steps(stepbench, pair, mcount, count, datasets, held_names, keep=None):
    """Step counts of the held-out recordings by the Swift engine with the fold's model; with
    `keep` (a path) the fold's model is also written there."""
    import tempfile
    model = model_json(pair, mcount, count)
    if keep:
        with open(keep, 'w') as f:
            json.dump(model, f)
    counts = {}
    with tempfile.TemporaryDirectory(dir=os.path.join(ROOT, '.build')) as work:
        path = os.path.join(work, 'model.json')
        with open(path, 'w') as f:
            json.dump(model, f)
        for data_dir, manifest in datasets:
            chosen = {n: e for n, e in manifest.items() if n in held_names and e.get('steps') is not None}
            if not chosen:
                continue
            folder = os.path.join(work, os.path.basename(os.path.normpath(data_dir)))
            os.makedirs(folder)
            for n in chosen:
                os.symlink(os.path.abspath(os.path.join(data_dir, n)), os.path.join(folder, n))
            with open(os.path.join(folder, 'manifest.json'), 'w') as f:
                json.dump(chosen, f)
            csv = os.path.join(work, 'counts.csv')
            subprocess.run([stepbench, 'accuracy', folder, '--model', path, '--quiet', '--no-gait', '--csv', csv],
                           check=True, capture_output=True)
            for line in open(csv).read().splitlines()[1:]:
                name, _, estimate = line.split(',')
                counts[(data_dir, name)] = int(estimate)
    return counts


def score_folds(fold_name, counts, datasets):
    """The held-out step counts of all folds, scored as ../shared/tools/score_steps.py scores."""
    sys.path.insert(0, os.path.join(ROOT, '../shared/tools'))
    try:
        import score_steps
    except ImportError:
        print('  (../shared/tools/score_steps.py not found: step counts not scored)')
        return
    for data_dir, _ in datasets:
        rows = {name: n for (d, name), n in counts.items() if d == data_dir}
        if rows:
            print(f'  steps, {fold_name}, {os.path.basename(os.path.normpath(data_dir))}: {json.dumps(score_steps.score(data_dir, rows))}')


# ---------------------------------------------------------------- main

def main():
    global ROUNDS, DEPTH, RATE, SEED
    args = sys.argv[1:]
    # Anything else would start a full training run that rewrites the shipped model file.
    if '-h' in args or '--help' in args:
        print(__doc__.split('\n\n')[0] + '\n\n' + __doc__.split('\n\n')[1])
        return
    valued = ('--keep-folds', '--stepctl', '--data', '--seed', '--size')
    flags = ('--check', '--no-cv', '--reuse')
    i = 0
    while i < len(args):
        if args[i] in valued and i + 1 < len(args) and not args[i + 1].startswith('-'):
            i += 2
        elif args[i] in flags:
            i += 1
        else:
            sys.exit(f'train_motion_model.py: unknown option or missing value: {args[i]} (see --help)')
    if '--check' in args:
        check()
        return
    ensure_venv()
    import numpy as np
    stepctl = None
    data_dirs = []
    cv = '--no-cv' not in args
    keep_folds = None
    i = 0
    while i < len(args):
        if args[i] == '--keep-folds':
            keep_folds = args[i + 1]; i += 2
        elif args[i] == '--stepctl':
            stepctl = args[i + 1]; i += 2
        elif args[i] == '--data':
            data_dirs.append(args[i + 1]); i += 2
        elif args[i] == '--seed':
            # Another draw of the augmented set and of the fit, to measure a change against the
            # noise of the draw (the shipped model is the SEED constant's).
            SEED = int(args[i + 1]); i += 2
        elif args[i] == '--size':
            # Measuring a smaller or larger model: the shipped size stays the constants above.
            rounds, depth, rate = args[i + 1].split(',')
            ROUNDS, DEPTH, RATE = int(rounds), int(depth), float(rate)
            i += 2
        else:
            i += 1
    if not data_dirs:
        data_dirs = [os.path.join(ROOT, '../shared/data/recordings'), os.path.join(ROOT, '../shared/data/activity')]
    bin_path = subprocess.run(['swift', 'build', '-c', 'release', '--show-bin-path'], cwd=ROOT, check=True,
                              capture_output=True, text=True).stdout.strip()
    if stepctl is None:
        subprocess.run(['swift', 'build', '-c', 'release', '--product', 'stepctl'], cwd=ROOT, check=True)
        stepctl = os.path.join(bin_path, 'stepctl')
    stepbench = os.path.join(bin_path, 'stepbench')
    if cv:
        subprocess.run(['swift', 'build', '-c', 'release', '--product', 'stepbench'], cwd=ROOT, check=True)
    datasets = []
    for d in data_dirs:
        path = os.path.join(d, 'manifest.json')
        if not os.path.exists(path):
            sys.exit(f'train_motion_model.py: no manifest.json in {d}')
        datasets.append((d, json.load(open(path))))

    rng = np.random.default_rng(SEED)
    real = [(os.path.join(d, n), LABELS[e['activity']], n) for d, m in datasets for n, e in sorted(m.items()) if e['activity'] in LABELS]
    # --reuse: the augmented set and the feature vectors of the last run, when the features,
    # the trainer and the data are unchanged (for iterating on the fit alone).
    cache = os.path.join(ROOT, '.build/motion-features.json')
    key = feature_digest() + ':' + ','.join(sorted(n for _, _, n in real))
    cached = None
    if '--reuse' in args and os.path.exists(cache):
        cached = json.load(open(cache))
        if cached.get('key') != key:
            cached = None
    if cached:
        print('reusing the augmented set and feature vectors of the last run', flush=True)
        augmented = [tuple(a) for a in cached['augmented']]
        vectors = {p: (v[0], v[1], np.array(v[2], dtype=float).reshape(-1, 2 + len(v[0]))) for p, v in cached['vectors'].items()}
        items = [(p, l, n, False) for p, l, n in real] + [(p, l, n, True) for p, l, n in augmented]
    else:
        print(f'augmenting {len(real)} recordings into .build/motion-augmented ...', flush=True)
        augmented = augment(datasets, os.path.join(ROOT, '.build/motion-augmented'), rng)
        items = [(p, l, n, False) for p, l, n in real] + [(p, l, n, True) for p, l, n in augmented]
        print(f'features of {len(items)} recordings (stepctl features) ...', flush=True)
        vectors = features(stepctl, [p for p, _, _, _ in items])
        with open(cache, 'w') as f:
            json.dump({'key': key, 'augmented': augmented,
                       'vectors': {p: [v[0], v[1], v[2].tolist()] for p, v in vectors.items()}}, f)

    X, y, files, origin, augmented_flag, magnitude_flag = [], [], [], [], [], []
    names = None
    mcount = None
    for path, label, name, is_aug in items:
        names, mcount, windows = vectors[path]
        if len(windows) == 0:
            continue
        keep = label_windows(windows, label, names)
        rows = windows[keep]
        X.append(rows[:, 2:])
        y += [CLASSES.index(label)] * len(rows)
        files += [path] * len(rows)
        origin += [name] * len(rows)
        augmented_flag += [is_aug] * len(rows)
        magnitude_flag += list(rows[:, 1] > 0.5)
    X = np.vstack(X)
    y = np.array(y)
    origin = np.array(origin)
    augmented_flag = np.array(augmented_flag)
    magnitude_flag = np.array(magnitude_flag)
    person = np.array([person_of(n) for n in origin])
    source = np.array([source_of(n) for n in origin])
    activity = np.array([activity_of(n, CLASSES[c]) for n, c in zip(origin, y)])
    print(f'{len(y)} windows ({(~augmented_flag).sum()} real), {len(names)} features ({mcount} |a| only)', flush=True)

    full_columns = [k for k, n in enumerate(names) if n not in MAGNITUDE_MODEL_ONLY]

    def fit_pair(mask):
        three = mask & ~magnitude_flag
        full = fit(X[three][:, full_columns], y[three], weights(y[three], np.array(files)[three], FULL_FILE_POWER))
        full.columns = full_columns
        mag = fit(X[mask][:, :mcount], y[mask], weights(y[mask], np.array(files)[mask], MAGNITUDE_FILE_POWER))
        return full, mag

    def predict_pair(pair, mask):
        full, mag = pair
        p = np.zeros((mask.sum(), len(CLASSES)))
        sub = X[mask]
        mo = magnitude_flag[mask]
        if (~mo).any():
            p[~mo] = predict_all(full, sub[~mo][:, full.columns])
        if mo.any():
            p[mo] = predict_all(mag, sub[mo][:, :mcount])
        return p

    def report(title, truth, predicted):
        print(f'\n{title}: windows right {100 * np.mean(truth == predicted):.1f} %')
        print('  true \\ called  ' + ''.join(f'{c[:10]:>11}' for c in CLASSES) + '   recall')
        for ci, c in enumerate(CLASSES):
            m = truth == ci
            if not m.any():
                continue
            row = [np.sum(predicted[m] == k) for k in range(len(CLASSES))]
            print(f'  {c:<14}' + ''.join(f'{100 * v / m.sum():>10.1f}%' for v in row) + f'   {100 * row[ci] / m.sum():5.1f} %')
        non_vehicle = truth != CLASSES.index('automotive')
        print(f'  non-vehicle windows called automotive: {100 * np.mean(predicted[non_vehicle] == CLASSES.index("automotive")):.2f} %')

    if cv:
        for fold_name, groups in [('leave one person out', person), ('leave one source out', source),
                                  ('leave one activity out', activity)]:
            truth_all, pred_all = [], []
            counts = {}
            index = {}
            print(f'\n== {fold_name}', flush=True)
            for g in sorted(set(groups[~augmented_flag])):
                if g in ('synthetic', ''):
                    continue
                held = (groups == g)
                pair = fit_pair(~held)
                test = held & ~augmented_flag
                p = predict_pair(pair, test).argmax(axis=1)
                held_names = {n for n, gg in zip(origin, groups) if gg == g}
                keep = None
                if keep_folds:
                    os.makedirs(keep_folds, exist_ok=True)
                    keep = os.path.join(keep_folds, f"{fold_name.replace(' ', '-')}-{g}.json")
                    index.update({n: os.path.basename(keep) for n in held_names})
                steps = fold_steps(stepbench, pair, mcount, len(names), datasets, held_names, keep)
                counts.update(steps)
                print(f'  fold {g:<14} {test.sum():6d} windows, right {100 * np.mean(p == y[test]):5.1f} %', flush=True)
                truth_all.append(y[test]); pred_all.append(p)
            if keep_folds:
                # Which fold model held out each recording: `stepbench accuracy DIR --folds
                # INDEX` re-counts them cross-validated without refitting (for the step gate).
                with open(os.path.join(keep_folds, fold_name.replace(' ', '-') + '.json'), 'w') as f:
                    json.dump(dict(sorted(index.items())), f, indent=0)
            report(f'{fold_name} (all folds, real windows)', np.concatenate(truth_all), np.concatenate(pred_all))
            score_folds(fold_name, counts, datasets)

    pair = fit_pair(np.ones(len(y), dtype=bool))
    real_mask = ~augmented_flag
    report('in-sample (real windows)', y[real_mask], predict_pair(pair, real_mask).argmax(axis=1))
    full_e = export(pair[0], len(names))
    mag_e = export(pair[1], mcount)
    summary = f'{len(y)} windows from {len(real)} recordings and {len(augmented)} augmented ones (seed {SEED}).'
    write_swift(full_e, mag_e, summary)
    if keep_folds:
        # The model fitted on everything, as JSON: `stepbench accuracy DIR --model
        # KEEP/in-sample.json` gives the in-sample figures of a candidate (another --seed or
        # augmentation) without rebuilding the tools around the generated file.
        os.makedirs(keep_folds, exist_ok=True)
        with open(os.path.join(keep_folds, 'in-sample.json'), 'w') as f:
            json.dump(model_json(pair, mcount, len(names)), f)
    print(f'\nwrote {os.path.relpath(OUT, ROOT)} ({len(full_e["feature"]) + len(mag_e["feature"])} nodes)')


if __name__ == '__main__':
    main()

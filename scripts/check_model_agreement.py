#!/usr/bin/env python3
"""Check that the Python model (scripts/motion_model.py) and the Swift engine count the same.

Usage: scripts/check_model_agreement.py [--stepctl PATH] [FILE_OR_DIR...]

Runs `stepctl analyze --json` over the recordings and scripts/motion_model.py over the same
files, and compares the step count of every file. Directories are expanded to their
*.csv / *.csv.gz files. Default files: Tests/Fixtures (the shipped Oxford recordings). Default
stepctl: .build-motion3/release/stepctl, else .build-motion2/release/stepctl, else .build/release/stepctl, else .build/debug/stepctl.
Exit status 0 when every file agrees exactly, 1 when any differs, 2 on usage errors. Parameters
are fitted on the Python model and copied into Swift, so a disagreement means one of the two
has drifted: fix the Python model (the Swift engine is the product).
"""
import gzip, json, os, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import motion_model as mm


def load(path):
    opener = gzip.open if path.endswith('.gz') else open
    rows = []
    with opener(path, 'rt') as f:
        header = next(f).strip()
        if header != 't,x,y,z':
            raise SystemExit(f'{path}: header is {header!r}, expected t,x,y,z')
        for line in f:
            if line.strip():
                t, x, y, z = line.split(',')
                rows.append((float(t), float(x), float(y), float(z)))
    return rows


def main(argv):
    stepctl = None
    paths = []
    i = 0
    while i < len(argv):
        if argv[i] == '--stepctl':
            if i + 1 >= len(argv):
                print('--stepctl needs a path', file=sys.stderr); return 2
            stepctl = argv[i + 1]; i += 2
        elif argv[i] in ('-h', '--help'):
            print(__doc__); return 0
        else:
            paths.append(argv[i]); i += 1
    if stepctl is None:
        for c in ('.build-motion3/release/stepctl', '.build-motion2/release/stepctl', '.build/release/stepctl', '.build/debug/stepctl'):
            if os.access(os.path.join(ROOT, c), os.X_OK):
                stepctl = os.path.join(ROOT, c); break
    if stepctl is None or not os.access(stepctl, os.X_OK):
        print('no stepctl binary: build it (swift build -c release --product stepctl) or pass --stepctl PATH', file=sys.stderr)
        return 2
    if not paths:
        paths = [os.path.join(ROOT, 'Tests', 'Fixtures')]
    files = []
    for p in paths:
        if os.path.isdir(p):
            files += sorted(os.path.join(p, n) for n in os.listdir(p) if n.endswith(('.csv', '.csv.gz')))
        elif os.path.exists(p):
            files.append(p)
        else:
            print(f'{p}: no such file or directory', file=sys.stderr); return 2
    if not files:
        print('no recordings found in ' + ', '.join(paths), file=sys.stderr); return 2

    out = subprocess.run([stepctl, 'analyze', '--json'] + files, capture_output=True, text=True)
    if out.returncode != 0:
        print(f'stepctl analyze failed ({out.returncode}): {out.stderr.strip()}', file=sys.stderr); return 1
    swift = {}
    for line in out.stdout.splitlines():
        obj = json.loads(line)
        swift[obj['file']] = obj['steps']
    differ = 0
    print(f"{'file':58} {'swift':>7} {'python':>7}")
    for f in files:
        py = len(mm.count(load(f)).steps)
        sw = swift.get(f)
        mark = '' if sw == py else '  DIFFERENT'
        differ += sw != py
        print(f'{os.path.basename(f)[:58]:58} {sw if sw is not None else "-":>7} {py:>7}{mark}')
    print(f'{len(files) - differ}/{len(files)} files agree')
    return 1 if differ else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

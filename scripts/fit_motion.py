#!/usr/bin/env python3
"""Fit the step detector's few parameters on the development set, honestly.

Usage: scripts/fit_motion.py [DATA_DIR]   (default ../shared/data/recordings)

Grid search over physically meaningful parameters (hysteresis floor, low-pass edge, number of
regular steps before crediting, shortest period at which a missed step is filled in). Objective:
walking MAPE + penalty for false steps on the no-step recordings. Reports the in-sample score of
the best grid point, then leave-one-person-out and leave-one-device-out cross validation: the
parameters are chosen on the other groups and scored on the held-out group. The chosen values
are written by hand into Sources/MotionCore/MotionConfiguration.swift (DetectorParameters).
"""
import gzip, json, os, sys, itertools
from multiprocessing import Pool
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import motion_model as mm

D = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), '../../shared/data/recordings')
MAN = json.load(open(os.path.join(D, 'manifest.json')))


def load(name):
    rows = []
    with gzip.open(os.path.join(D, name), 'rt') as f:
        next(f)
        for line in f:
            t, x, y, z = line.split(',')
            rows.append((float(t), float(x), float(y), float(z)))
    return rows


def person(name):
    if name.startswith('bangle'): return 'hughb'
    return name.split('_')[1]


def device(name):
    return MAN[name]['device']


GRID = [dict(hyst_min=a, lowpass_hz=b, confirm_steps=c, fill_min_period=d)
        for a, b, c, d in itertools.product([0.06, 0.08, 0.10], [2.5, 3.0], [7, 9, 11], [0.4, 0.45, 0.5])]


def run(args):
    i, p = args
    return i, {k: len(mm.count(DATA[k], **p).steps) for k in DATA}


def score(res, names):
    w = [abs(res[k] - MAN[k]['steps']) / MAN[k]['steps'] for k in names if MAN[k]['activity'] == 'walking']
    fp = sum(max(0, res[k] - MAN[k]['steps']) for k in names if MAN[k]['activity'] != 'walking')
    tot_t = sum(MAN[k]['steps'] for k in names if MAN[k]['activity'] == 'walking')
    tot_e = sum(res[k] for k in names if MAN[k]['activity'] == 'walking')
    return dict(mape=100 * sum(w) / max(1, len(w)), worst=100 * max(w, default=0),
                total=100 * (tot_e - tot_t) / max(1, tot_t), fp=fp)


def objective(s):
    return s['mape'] + 0.5 * s['worst'] / 10 + s['fp'] / 10


if __name__ == '__main__':
    DATA = {k: load(k) for k in sorted(MAN)}
    with Pool(2) as pool:
        results = dict(pool.map(run, list(enumerate(GRID))))
    names = list(DATA)
    best = min(results, key=lambda i: objective(score(results[i], names)))
    print('in-sample best', GRID[best], score(results[best], names))
    for label, key in (('person', person), ('device', device)):
        held = {}
        for g in sorted(set(map(key, names))):
            train = [k for k in names if key(k) != g]
            i = min(results, key=lambda j: objective(score(results[j], train)))
            for k in names:
                if key(k) == g: held[k] = results[i][k]
            print(f'  fold {label}={g}: chose {GRID[i]}')
        print(f'leave-one-{label}-out', score(held, names))

"""A pedalling thigh as a phone in a trouser pocket records it: 60 s at 50 Hz, 75 rpm, the thigh 25 +- 28 degrees
below the horizontal, the pocket 0.2 m from the hip, road vibration 0.02-0.04 g at 11-23 Hz. Writes
DIR/pedal-thigh.csv.gz and a manifest labelled cycling (docs/motion.md, "Synthetic rides in training"):
    python3 docs/experiments/synthetic-cycling-pedal-thigh.py DIR
    stepbench accuracy DIR --no-gait [--model FOLDS/in-sample.json]
"""
import math, gzip, json, os, sys
out = sys.argv[1]
os.makedirs(out, exist_ok=True)
def sample(t):
    f = 75 / 60.0
    w = 2 * math.pi * f
    th0, A, r = math.radians(25), math.radians(28), 0.2
    th = th0 + A * math.sin(w * t)
    d1 = A * w * math.cos(w * t)
    d2 = -A * w * w * math.sin(w * t)
    s, c = math.sin(th), math.cos(th)
    # p = r (cos th, 0, -sin th)
    ax = r * (d2 * -s + d1 * d1 * -c) / 9.81
    az = r * (d2 * -c + d1 * d1 * s) / 9.81
    fx = ax + 0.02 * math.sin(2 * math.pi * 11 * t)
    fz = az + 1.0 + 0.04 * math.sin(2 * math.pi * 17 * t) + 0.02 * math.sin(2 * math.pi * 23 * t + 1)
    # into the thigh's frame: R_y(th)^T f
    tx = c * fx - s * fz
    tz = s * fx + c * fz
    ty = 0.0
    # the phone: x across the thigh, y along it, z out of it
    return (-ty, tx, tz)
rows = []
n = 0
while n < 60 * 50:
    t = n / 50.0
    rows.append((t,) + sample(t))
    n += 1
with gzip.open(os.path.join(out, 'pedal-thigh.csv.gz'), 'wt') as f:
    f.write('t,x,y,z\n')
    for r in rows: f.write('%.4f,%.5f,%.5f,%.5f\n' % r)
json.dump({'pedal-thigh.csv.gz': {'activity': 'cycling', 'placement': 'phone', 'rate_hz': 50.0, 'steps': None}}, open(os.path.join(out, 'manifest.json'), 'w'))

#!/usr/bin/env python3
"""Reference model of the MotionCore step detector and activity classifier, sample by sample.

This file mirrors Sources/MotionCore (same stages, same parameter names, same order of
operations) so parameters can be fitted offline (scripts/fit_motion.py) and checked against
the Swift engine (scripts/check_model_agreement.py). The Swift code is the product; when the
two disagree the Swift code wins and this file must be brought back in line.

Split in two so a fit does not redo the parameter-free part: `resample(samples)` turns any
input into 25 Hz magnitude segments (one per stretch without a gap); `Model.run(segments)`
runs the gait filter, peak picker, step gate and classifier over them.
"""
import math

FS = 25.0          # internal rate after resampling
GAP_BINS = 25      # more than 1 s without data: a gap, nothing is bridged


def butter_lowpass(fc, fs):
    """RBJ biquad low-pass, Q = 1/sqrt(2) (2nd-order Butterworth)."""
    w0 = 2 * math.pi * fc / fs
    alpha = math.sin(w0) / (2 * 0.70710678118654752)
    c = math.cos(w0)
    a0 = 1 + alpha
    b0 = (1 - c) / 2 / a0
    return (b0, 2 * b0, b0, (-2 * c) / a0, (1 - alpha) / a0)


# Same names and values as DetectorParameters.fitted and ActivityParameters.fitted in Swift.
DEFAULT = dict(
    lowpass_hz=2.5,        # gait band upper edge
    baseline_s=1.0,        # one-pole high-pass time constant (removes gravity)
    hyst_min=0.10,         # g, smallest peak-to-valley swing that counts
    hyst_rel=0.3,          # fraction of the running RMS a swing must exceed
    rms_s=2.0,             # RMS time constant
    min_interval=0.25,     # s, fastest step (4 steps/s)
    max_interval=1.5,      # s, slowest step before gait is considered broken
    confirm_steps=11,      # regular steps needed to start crediting
    confirm_steps_vehicle=14,
    regularity=0.35,       # allowed relative interval deviation from the run's median
    period_gain=0.2,       # how fast the tracked step period follows new intervals
    fill_min_period=0.45,  # s; below this a double interval is more likely a double peak
    max_skip=3,            # periods without a peak that end a run
    refractory=0.4,        # inside a run, a peak sooner than this fraction of the period is a double peak
    stride_interval=0.9,   # s; regular peaks at least this far apart are strides (one peak per two steps)
    # activity classifier
    still_level=0.008,
    vehicle_level=0.012,
    vehicle_max_level=0.12,
    running_cadence=2.4,
    running_level=0.5,
)

# ---------------------------------------------------------------- resampling (parameter free)


def resample(samples):
    """Samples (t, x, y, z) -> list of segments, each a list of (t, |a|) at 25 Hz.

    40 ms bins averaged on their own timestamps (boxcar anti-alias for fast input), empty
    bins filled linearly (slow input), a new segment after > 1 s without data or when the
    clock goes backwards. Mirrors MotionEngine.process / closeBin.
    """
    segments = []
    cur = None
    cur_bin = None
    sx = sy = sz = 0.0
    n = 0
    last = None  # (bin, magnitude) last emitted

    def close():
        nonlocal cur, last
        mx, my, mz = sx / n, sy / n, sz / n
        v = math.sqrt(mx * mx + my * my + mz * mz)
        if last is not None and cur_bin - last[0] > 1:
            lb, lv = last
            span = cur_bin - lb
            if span > GAP_BINS:
                cur = []
                segments.append(cur)
            else:
                for k in range(lb + 1, cur_bin):
                    cur.append(((k + 0.5) / FS, lv + (v - lv) * (k - lb) / span))
        if cur is None:
            cur = []
            segments.append(cur)
        cur.append(((cur_bin + 0.5) / FS, v))
        last = (cur_bin, v)

    for t, x, y, z in samples:
        if not (math.isfinite(t) and math.isfinite(x) and math.isfinite(y) and math.isfinite(z)):
            continue
        b = math.floor(t * FS)
        if n > 0 and b == cur_bin:
            sx += x; sy += y; sz += z; n += 1
            continue
        if n > 0:
            if b < cur_bin:   # clock went backwards: drop the open bin, start over
                last = None
                cur = None
            else:
                close()
        cur_bin, sx, sy, sz, n = b, x, y, z, 1
    if n > 0:
        close()
    return segments


# ---------------------------------------------------------------- detector + classifier


class Model:
    def __init__(self, **p):
        unknown = set(p) - set(DEFAULT)
        if unknown:
            raise ValueError(f'unknown parameters {sorted(unknown)}')
        self.p = dict(DEFAULT); self.p.update(p)
        P = self.p
        self.lp = butter_lowpass(P['lowpass_hz'], FS)
        self.hp_a = math.exp(-1 / (P['baseline_s'] * FS))
        self.rms_a = math.exp(-1 / (P['rms_s'] * FS))
        self.steps = []
        self.changes = []   # (kind, confidence, start)
        self.state = None   # (kind, confidence, start)
        self.block_index = 0
        self.levels = [0.0] * 10
        self.streak_kind = 'unknown'; self.streak_start = 0.0; self.streak_blocks = 0
        self.still_in_vehicle_since = None
        self.restart()

    def restart(self):
        # GaitFilter.reset, PeakPicker.reset, StepGate.reset, ActivityClassifier.resetWindow
        self.z1 = self.z2 = 0.0
        self.base = None
        self.ms = 0.0
        self.seeking_peak = True
        self.ext = -math.inf; self.ext_t = 0.0
        self.pending = []
        self.walking = False
        self.period = 0.0
        self.run_steps = 0
        self.stride_run = False
        self.bsum = self.bsq = 0.0; self.bcount = 0
        self.blocks_filled = 0

    def run(self, segments):
        for i, seg in enumerate(segments):
            if not seg:
                continue
            if self.state is None:
                self.state = ('unknown', 'low', seg[0][0])
            if i > 0:
                self.restart()
            for t, m in seg:
                self.step25(t, m)
        return self

    def step25(self, t, m):
        P = self.p
        b0, b1, b2, a1, a2 = self.lp
        if self.base is None:
            self.z1 = m * (1 - b0); self.z2 = m * (b2 - a2)   # steady state at m
            y = m
            self.base = m
        else:
            y = b0 * m + self.z1
            self.z1 = b1 * m - a1 * y + self.z2
            self.z2 = b2 * m - a2 * y
        self.base = self.hp_a * self.base + (1 - self.hp_a) * y
        f = y - self.base
        self.ms = self.rms_a * self.ms + (1 - self.rms_a) * f * f
        h = max(P['hyst_min'], P['hyst_rel'] * math.sqrt(self.ms))
        in_vehicle = self.state[0] == 'automotive'
        if self.seeking_peak:
            if f > self.ext:
                self.ext, self.ext_t = f, t
            elif f < self.ext - h:
                self.offer(self.ext_t, in_vehicle)
                self.seeking_peak = False; self.ext, self.ext_t = f, t
        else:
            if f < self.ext:
                self.ext, self.ext_t = f, t
            elif f > self.ext + h:
                self.seeking_peak = True; self.ext, self.ext_t = f, t
        if self.walking:
            limit = max(P['max_interval'], (P['max_skip'] + P['regularity']) * self.period)
            if t - self.last_step > limit:
                self.walking = False; self.pending = []; self.run_steps = 0
        self.classify(m, t)

    # ------------------------------------------------------------ StepGate.offer
    def offer(self, t, in_vehicle):
        P = self.p
        if self.walking:
            dt = t - self.last_step
            if dt < max(P['min_interval'], P['refractory'] * self.period):
                return
            multiple = round(dt / self.period)
            if multiple == 2 and (self.period >= P['fill_min_period'] or self.stride_run) and abs(dt - 2 * self.period) <= P['regularity'] * self.period:
                self.steps.append(self.last_step + dt / 2)
                self.run_steps += 1
                dt /= 2
            # The period follows the mean of the last two intervals (half a stride), so a
            # lopsided gait (phone in one pocket: short, long, short, ...) does not drag it
            # towards the short interval and make every long one look like a missed step.
            half = (dt + self.last_interval) / 2
            self.last_interval = dt
            if abs(half - self.period) <= P['regularity'] * self.period:
                self.period += P['period_gain'] * (half - self.period)
            # A run that drifted to stride intervals (the wrist's arm swing took over |a|):
            # track the step period, and every double interval credits the step in between.
            if self.period >= P['stride_interval']:
                self.period /= 2; self.last_interval /= 2; self.stride_run = True
            self.steps.append(t); self.run_steps += 1; self.last_step = t
            return
        if self.pending:
            dt = t - self.pending[-1]
            if dt < P['min_interval']:
                return
            if dt > P['max_interval']:
                self.pending = []
        self.pending.append(t)
        n = P['confirm_steps_vehicle'] if in_vehicle else P['confirm_steps']
        if len(self.pending) < n:
            return
        seq = self.pending[-n:]
        iv = [b - a for a, b in zip(seq, seq[1:])]
        mean = (seq[-1] - seq[0]) / (n - 1)
        # Regular: every half stride (mean of two neighbouring intervals) within the tolerance
        # of the mean interval, and no single interval beyond twice the tolerance, so a
        # lopsided gait (short, long, short, ...) confirms like a symmetric one.
        if all(abs((a + b) / 2 - mean) <= P['regularity'] * mean for a, b in zip(iv, iv[1:])) and \
                all(abs(d - mean) <= 2 * P['regularity'] * mean for d in iv):
            self.stride_run = mean >= P['stride_interval']
            if self.stride_run:
                # Peaks a stride apart (on the wrist the arm swing can dominate |a|, one peak
                # per two steps): each interval holds one more step, credited at its middle.
                for a, b in zip(seq, seq[1:]):
                    self.steps.append(a); self.steps.append((a + b) / 2)
                self.steps.append(seq[-1])
                mean /= 2
                iv = [d / 2 for d in iv]
                n = 2 * n - 1
            else:
                self.steps.extend(seq)
            self.walking = True; self.period = mean; self.last_step = t
            self.last_interval = iv[-1]
            self.run_start = seq[0]; self.run_steps = n
            self.pending = []
        else:
            self.pending = self.pending[-(n - 1):]

    # ------------------------------------------------------------ ActivityClassifier
    def classify(self, m, t):
        c = m - 1
        self.bsum += c; self.bsq += c * c; self.bcount += 1
        if self.bcount < 25:
            return
        mean = self.bsum / 25
        level = math.sqrt(max(self.bsq / 25 - mean * mean, 0.0))
        self.bsum = self.bsq = 0.0; self.bcount = 0
        self.levels[self.block_index] = level
        self.block_index = (self.block_index + 1) % 10
        self.blocks_filled = min(self.blocks_filled + 1, 10)
        self.decide(t)

    def change(self, kind, conf, start):
        new = (kind, conf, start)
        if new != self.state:
            self.state = new
            self.changes.append(new)

    def decide(self, t):
        P = self.p
        s = sorted(self.levels[:self.blocks_filled])
        level = s[self.blocks_filled // 2]
        kind, conf, start = self.state
        if self.walking:
            cadence = 1 / self.period if self.period > 0 else 0
            raw = 'running' if cadence >= P['running_cadence'] and level > P['running_level'] else 'gait'
        elif self.blocks_filled < 3:
            return
        elif level < P['still_level']:
            raw = 'still'
        elif level < P['vehicle_level']:
            raw = 'quiet'
        elif level <= P['vehicle_max_level']:
            raw = 'vehicle'
        else:
            raw = 'unknown'
        if raw in ('gait', 'running'):
            k = 'running' if raw == 'running' else 'walking'
            cf = 'high' if self.run_steps >= 20 else 'medium'
            self.still_in_vehicle_since = None
            self.streak_blocks = 0
            if kind != k:
                self.change(k, cf, max(self.run_start, start))
            elif conf != cf:
                self.change(k, cf, start)
            return
        cand = {'still': 'stationary', 'quiet': 'automotive' if kind == 'automotive' else 'stationary',
                'vehicle': 'automotive'}.get(raw, 'unknown')
        block_start = t - 1.0
        if cand == self.streak_kind:
            self.streak_blocks += 1
        else:
            self.streak_kind = cand; self.streak_start = block_start; self.streak_blocks = 1
        if kind == 'automotive':
            if cand == 'stationary':
                if self.still_in_vehicle_since is None:
                    self.still_in_vehicle_since = block_start
                if t - self.still_in_vehicle_since >= 180:
                    since = self.still_in_vehicle_since
                    self.still_in_vehicle_since = None
                    self.change('stationary', 'medium', since)
                return
            self.still_in_vehicle_since = None
            if cand == 'unknown' and self.streak_blocks >= 60:
                self.change('unknown', 'low', self.streak_start)
            elif cand == 'automotive' and conf != 'high' and t - start >= 120:
                self.change('automotive', 'high', start)
            return
        rank = {'low': 0, 'medium': 1, 'high': 2}
        if cand == 'stationary':
            needed = 5; cf = 'high' if level < P['still_level'] / 2 else 'medium'
        elif cand == 'automotive':
            needed = 30; cf = 'medium'
        else:
            needed = 3 if kind in ('walking', 'running') else 10; cf = 'low'
        if self.streak_blocks < needed:
            return
        if kind == cand:
            if rank[cf] > rank[conf]:
                self.change(cand, cf, start)
            return
        st = max(self.streak_start, self.last_step) if kind in ('walking', 'running') else self.streak_start
        self.change(cand, cf, max(st, start))


def count(samples, **p):
    return Model(**p).run(resample(samples))

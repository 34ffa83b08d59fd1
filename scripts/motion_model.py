#!/usr/bin/env python3
"""Reference model of the MotionCore step detector and activity classifier, sample by sample.

This file mirrors Sources/MotionCore (same stages, same parameter names) so parameters can be
fitted offline with numpy at hand (scripts/fit_motion.py). The Swift code is the product; when
the two disagree the Swift code wins and this file must be brought back in line.
"""
import math

FS = 25.0  # internal rate after resampling


def butter_lowpass(fc, fs):
    """RBJ biquad low-pass, Q = 1/sqrt(2) (2nd-order Butterworth)."""
    w0 = 2 * math.pi * fc / fs
    alpha = math.sin(w0) / (2 * (1 / math.sqrt(2)))
    c = math.cos(w0)
    a0 = 1 + alpha
    b0 = (1 - c) / 2 / a0
    return (b0, 2 * b0, b0, (-2 * c) / a0, (1 - alpha) / a0)


DEFAULT = dict(
    lowpass_hz=2.5,      # gait band upper edge
    baseline_s=1.0,      # one-pole high-pass time constant (removes gravity)
    hyst_min=0.10,       # g, smallest peak-to-valley swing that counts
    hyst_rel=0.3,        # fraction of the running RMS a swing must exceed
    rms_s=2.0,           # RMS time constant
    min_interval=0.25,   # s, fastest step (4 steps/s)
    max_interval=1.5,    # s, slowest step before gait is considered broken
    confirm_steps=7,     # regular steps needed to start crediting
    regularity=0.35,
    period_gain=0.2,     # how fast the tracked step period follows new intervals
    fill_missed=True,
    fill_min_period=0.45, # s; below this a double interval is more likely a double peak
    max_skip=3,          # at most this many periods without a peak inside a run     # allowed relative interval deviation from the run's median
    still_sd=0.012,      # g, std of magnitude below this in a window: stationary
    vehicle_sd_max=0.30,
)


class Model:
    def __init__(self, **p):
        self.p = dict(DEFAULT); self.p.update(p)
        P = self.p
        self.lp = butter_lowpass(P['lowpass_hz'], FS)
        self.hp_a = math.exp(-1 / (P['baseline_s'] * FS))
        self.rms_a = math.exp(-1 / (P['rms_s'] * FS))
        self.steps = []
        self.reset()
        self.bin = None

    def reset(self):
        self.z1 = self.z2 = 0.0
        self.base = None
        self.ms = 0.0
        self.seeking_peak = True
        self.ext = -1e9; self.ext_t = 0.0
        self.pending = []      # candidate step times not yet credited
        self.walking = False
        self.last_step = None
        self.intervals = []

    # --- resampling on timestamps (bin average = CIC anti-alias, linear fill for slow input)
    def feed(self, t, x, y, z):
        b = math.floor(t * FS)
        if self.bin is None:
            self.bin, self.sx, self.sy, self.sz, self.n = b, x, y, z, 1
            self.last_emit = None
            return
        if b == self.bin:
            self.sx += x; self.sy += y; self.sz += z; self.n += 1
            return
        if b < self.bin:      # time went backwards: treat as gap
            self.gap(); self.bin, self.sx, self.sy, self.sz, self.n = b, x, y, z, 1; return
        v = math.sqrt(self.sx ** 2 + self.sy ** 2 + self.sz ** 2) / self.n
        cb = self.bin
        if self.last_emit is not None:
            lb, lv = self.last_emit
            if cb - lb > 25:   # more than 1 s without data: do not bridge
                self.reset()
            else:
                for k in range(lb + 1, cb):
                    self.step25((k + 0.5) / FS, lv + (v - lv) * (k - lb) / (cb - lb))
        self.step25((cb + 0.5) / FS, v)
        self.last_emit = (cb, v)
        self.bin, self.sx, self.sy, self.sz, self.n = b, x, y, z, 1

    def gap(self):
        self.finish_pending()
        self.reset(); self.last_emit = None

    def step25(self, t, m):
        P = self.p
        b0, b1, b2, a1, a2 = self.lp
        # transposed direct form II
        y = b0 * m + self.z1
        self.z1 = b1 * m - a1 * y + self.z2
        self.z2 = b2 * m - a2 * y
        if self.base is None:
            self.base = m; self.z1 = m * (1 - b0); self.z2 = m * (b2 - a2)  # steady state at m
            y = m
        self.base = self.hp_a * self.base + (1 - self.hp_a) * y
        f = y - self.base
        self.ms = self.rms_a * self.ms + (1 - self.rms_a) * f * f
        h = max(P['hyst_min'], P['hyst_rel'] * math.sqrt(self.ms))
        if self.seeking_peak:
            if f > self.ext: self.ext, self.ext_t = f, t
            elif f < self.ext - h:
                self.candidate(self.ext_t)
                self.seeking_peak = False; self.ext, self.ext_t = f, t
        else:
            if f < self.ext: self.ext, self.ext_t = f, t
            elif f > self.ext + h:
                self.seeking_peak = True; self.ext, self.ext_t = f, t
        if self.walking and t - self.last_step > max(P['max_interval'], P['max_skip'] * self.period + P['regularity'] * self.period):
            self.walking = False; self.pending = []

    def candidate(self, t):
        P = self.p
        if self.walking:
            dt = t - self.last_step
            if dt < P['min_interval']: return
            # A step the peak detector missed inside a running gait shows as a double interval:
            # credit the skipped ones at interpolated times.
            k = round(dt / self.period)
            if P["fill_missed"] and k == 2 and self.period >= P["fill_min_period"] and abs(dt - k * self.period) <= P['regularity'] * self.period:
                for j in range(1, k):
                    self.steps.append(self.last_step + dt * j / k)
                dt = dt / k
            if abs(dt - self.period) <= P['regularity'] * self.period:
                self.period += P['period_gain'] * (dt - self.period)
            self.steps.append(t); self.last_step = t
            return
        if self.pending and t - self.pending[-1] < P['min_interval']:
            return
        if self.pending and t - self.pending[-1] > P['max_interval']:
            self.pending = []
        self.pending.append(t)
        n = P['confirm_steps']
        if len(self.pending) >= n:
            seq = self.pending[-n:]
            iv = [b - a for a, b in zip(seq, seq[1:])]
            med = sorted(iv)[len(iv) // 2]
            if all(abs(d - med) <= P['regularity'] * med for d in iv):
                self.steps.extend(self.pending[-n:])
                self.walking = True; self.last_step = t; self.pending = []; self.period = med
            else:
                self.pending = self.pending[-(n - 1):]

    def finish_pending(self):
        pass


def count(samples, **p):
    m = Model(**p)
    for t, x, y, z in samples:
        m.feed(t, x, y, z)
    return m

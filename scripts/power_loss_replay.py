#!/usr/bin/env python3
"""Replays a dm-log-writes log (scripts/power-loss-test) and checks the ledger at every crash point.

The log format is the kernel's (Documentation/admin-guide/device-mapper/log-writes.rst and
drivers/md/dm-log-writes.c): sector 0 holds the super block (le64 magic 0x6a736677736872, le64
version 1, le64 nr_entries, le32 sectorsize); entries follow from the next sector, each one
sector of header (le64 sector, le64 nr_sectors, le64 flags, le64 data_len; a mark's text right
after it) followed by nr_sectors sectors of data (none for a discard or a mark). Flags: FLUSH 1,
FUA 2, DISCARD 4, MARK 8, METADATA 16. Writes are logged in completion order and only once a
flush made them durable, so the log is what a disk with a volatile cache held at each flush.

States checked, all starting from the pristine image (--base):
  * at every FLUSH or FUA entry: every entry up to and including it applied;
  * between two flushes, at random cut points: everything up to the last flush, every FUA write
    before the cut, and a random subset of the other writes before the cut, each multi-sector
    write possibly torn (a random subset of its sectors) -- what a volatile cache may have
    written when the power went. A tear never splits the ext4 superblock's two sectors (see
    superblock_whole: no program's writes can make that state recoverable).
Each state is written to an image, recovered with `e2fsck -fp` (journal replay and the boot-time
check), then must pass `e2fsck -fn` (a full read-only check finding nothing); its ledger directory is
copied out with debugfs and checked with
`stepctl ledger verify --json` and against the final ledger (--final image):
  * 0 corrupt records (a torn tail, which the agent cuts at start, is counted apart) and 0
    duplicates;
  * every byte of every day file up to its last complete record equals the final file (records
    are never rewritten, so anything else is a changed record);
  * every record the agent had reported durable (the `durable:N:steps:L` marks the VM put in the
    log after `ledger.export` returned N) present, and the acknowledged sync anchor never ahead of
    the records present;
  * detector steps in the state >= L - 99 (L: steps the agent reported counted at that mark).
The last line is `replay: PASS ...` or `replay: FAIL ...`; exit status 0 only on PASS.
"""
import argparse
import json
import os
import random
import shutil
import struct
import subprocess
import sys
import time

import ledger_lines  # scripts/ledger_lines.py: the record line format, shared with scripts/soak

MAGIC = 0x6A736677736872
FLUSH, FUA, DISCARD, MARK, METADATA = 1, 2, 4, 8, 16
MAX_STEP_LOSS = 99
SUPERBLOCK_START, SUPERBLOCK_END = 1024, 2048


class Entry:
    __slots__ = ("index", "sector", "nr_sectors", "flags", "data_offset", "mark")

    def __init__(self, index, sector, nr_sectors, flags, data_offset, mark):
        self.index, self.sector, self.nr_sectors, self.flags = index, sector, nr_sectors, flags
        self.data_offset, self.mark = data_offset, mark

    @property
    def writes(self):
        return self.nr_sectors > 0 and not self.flags & MARK


def read_log(path):
    with open(path, "rb") as f:
        log = f.read()
    magic, version, count, sectorsize = struct.unpack_from("<QQQI", log, 0)
    if magic != MAGIC:
        raise SystemExit(f"replay: FAIL {path} is not a dm-log-writes log (magic {magic:#x})")
    if version != 1:
        raise SystemExit(f"replay: FAIL log version {version}, this replayer knows version 1")
    entries = []
    position = sectorsize
    for index in range(count):
        sector, nr_sectors, flags, data_len = struct.unpack_from("<QQQQ", log, position)
        mark = None
        if flags & MARK:
            mark = log[position + 32:position + 32 + data_len].decode("utf-8", "replace")
        elif data_len:
            raise SystemExit(f"replay: FAIL entry {index} carries inline data (DAX), not supported")
        data_offset = position + sectorsize
        entries.append(Entry(index, sector, nr_sectors, flags, data_offset, mark))
        position = data_offset
        if not flags & (DISCARD | MARK):
            position += nr_sectors * sectorsize
        if position > len(log):
            raise SystemExit(f"replay: FAIL entry {index} runs past the end of the log")
    return log, entries, sectorsize


def apply(image, log, entry, sectorsize, sectors=None):
    """Applies one entry to a bytearray, or only `sectors` (indexes into the write) of it."""
    if not entry.writes:
        return
    base = entry.sector * sectorsize
    if sectors is None:
        length = entry.nr_sectors * sectorsize
        if entry.flags & DISCARD:
            image[base:base + length] = bytes(length)
        else:
            image[base:base + length] = log[entry.data_offset:entry.data_offset + length]
        return
    for s in sectors:
        at = base + s * sectorsize
        if entry.flags & DISCARD:
            image[at:at + sectorsize] = bytes(sectorsize)
        else:
            image[at:at + sectorsize] = log[entry.data_offset + s * sectorsize:entry.data_offset + (s + 1) * sectorsize]


def superblock_whole(entry, sectorsize, sectors, rng, figures):
    """`sectors` (a torn subset of `entry`'s) with the ext4 superblock's sectors all in or all out.

    The superblock is the 1 KiB at byte 1024, two 512-byte sectors. Half of a new one over half of
    the old fails its checksum, and e2fsck -p then cannot open the file system at all (exit 8) and
    does not try the backups; this 16 MiB image has one block group, hence no backup either. The
    kernel writes the superblock in place (block 0, between flushes) whatever programs run on the
    file system, so such a state tests ext4 on a disk that tears inside 1 KiB, not the agent: the
    writes are in main's log, and seed 51 on a main run's log failed exactly so, as seed 1 did on
    the owner record's. Both halves or neither are written, chosen at random; only the split is
    not made."""
    first = entry.sector * sectorsize
    inside = [s for s in range(entry.nr_sectors)
              if first + s * sectorsize < SUPERBLOCK_END and first + (s + 1) * sectorsize > SUPERBLOCK_START]
    chosen = set(sectors)
    if not inside or all(s in chosen for s in inside) or not any(s in chosen for s in inside):
        return sectors
    figures["superblock_kept_whole"] += 1
    if rng.random() < 0.5:
        chosen.update(inside)
    else:
        chosen.difference_update(inside)
    return sorted(chosen)


def parse_mark(text):
    """`durable:N:steps:L` -> (N, L); other marks -> None."""
    words = text.split(":")
    if len(words) == 4 and words[0] == "durable" and words[2] == "steps":
        return int(words[1]), int(words[3])
    return None


class Checker:
    def __init__(self, args, final_files):
        self.args = args
        self.final_files = final_files
        self.final_sequences = {seq for lines in final_files.values() for seq, _, _ in parse_lines(lines)}
        self.image_path = os.path.join(args.work, "state.img")
        self.dump = os.path.join(args.work, "dump")
        self.figures = {"states": 0, "at_flush": 0, "at_fua": 0, "between": 0, "torn_writes": 0,
                        "with_ledger": 0, "corrupt": 0, "duplicates": 0, "torn_tails": 0, "changed_records": 0,
                        "durable_missing": 0, "anchor_ahead": 0, "fsck_errors": 0, "fsck_fixed": 0,
                        "worst_lost": 0, "promised_states": 0, "max_records": 0,
                        "superblock_kept_whole": 0}
        self.failures = []

    def fail(self, where, message):
        if len(self.failures) < 20:
            self.failures.append(f"{where}: {message}")

    def check(self, image, promise, where, kind):
        f = self.figures
        f["states"] += 1
        f[kind] += 1
        with open(self.image_path, "wb") as out:
            out.write(image)
        fsck = subprocess.run(["e2fsck", "-fp", self.image_path], capture_output=True, text=True)
        if fsck.returncode >= 4:
            f["fsck_errors"] += 1
            self.fail(where, f"e2fsck -fp exit {fsck.returncode}: {fsck.stdout.strip()[-300:]}")
            return
        if fsck.returncode & 1:
            f["fsck_fixed"] += 1
        # After recovery the file system must be consistent: a read-only full check finds nothing.
        clean = subprocess.run(["e2fsck", "-fn", self.image_path], capture_output=True, text=True)
        if clean.returncode != 0:
            f["fsck_errors"] += 1
            self.fail(where, f"e2fsck -fn after recovery exit {clean.returncode}: {clean.stdout.strip()[-300:]}")
            return
        files, anchor_file = dump_ledger(self.image_path, self.args.state_dir, self.dump)
        durable, counted = promise if promise else (0, 0)
        if promise:
            f["promised_states"] += 1
        if files is None:
            f["worst_lost"] = max(f["worst_lost"], counted)
            if durable > 0 or counted > MAX_STEP_LOSS:
                f["durable_missing"] += durable
                self.fail(where, f"no ledger directory, but {durable} records were reported durable, {counted} steps counted")
            return
        f["with_ledger"] += 1
        verify = subprocess.run([self.args.stepctl, "ledger", "verify", "--state-dir", os.path.join(self.dump, "state"),
                                 "--json"], capture_output=True, text=True)
        if verify.returncode not in (0, 1):
            self.fail(where, f"stepctl ledger verify exit {verify.returncode}: {verify.stderr.strip()}")
            return
        report = json.loads(verify.stdout)
        torn = {}
        for problem in report["problems"]:
            name, _, rest = problem.partition(":")
            offset, _, reason = rest.partition(": ")
            if reason.startswith("torn tail"):
                torn[name] = int(offset)
        corrupt = report["corrupt"] - report["torn_tails"]
        f["corrupt"] += corrupt
        f["duplicates"] += report["duplicates"]
        f["torn_tails"] += report["torn_tails"]
        if corrupt or report["duplicates"]:
            self.fail(where, f"{corrupt} corrupt, {report['duplicates']} duplicated: {report['problems'][:3]}")
        present = set()
        detector_steps = 0
        records = 0
        for name, data in files.items():
            final = self.final_files.get(name, b"")
            common = 0
            limit = min(len(data), len(final))
            while common < limit and data[common] == final[common]:
                common += 1
            good = data.rfind(b"\n", 0, common) + 1 if common < len(data) else len(data)
            if good < len(data) and torn.get(name) != good:
                f["changed_records"] += 1
                self.fail(where, f"{name}: bytes from {good} differ from the final file and are not a torn tail"
                                 f" (verify: {torn.get(name)})")
            for seq, kind, steps in parse_lines(data[:good]):
                present.add(seq)
                records += 1
                if kind == "detector":
                    detector_steps += steps
        f["max_records"] = max(f["max_records"], records)
        missing = sorted(s for s in self.final_sequences if s <= durable and s not in present)
        if missing:
            f["durable_missing"] += len(missing)
            self.fail(where, f"{len(missing)} record(s) reported durable (<= {durable}) missing, first {missing[0]}")
        if anchor_file is not None:
            anchor = report.get("synced_anchor")
            if anchor is None:
                self.fail(where, "sync-anchor present but unreadable")
            elif any(s <= anchor and s not in present for s in self.final_sequences):
                f["anchor_ahead"] += 1
                self.fail(where, f"sync anchor {anchor} acknowledges records that are not on disk")
        lost = counted - detector_steps
        f["worst_lost"] = max(f["worst_lost"], lost)
        if lost > MAX_STEP_LOSS:
            self.fail(where, f"{lost} steps lost (agent reported {counted} counted, ledger holds {detector_steps})")


def parse_lines(data):
    """(sequence, kind, steps) of each record line (tombstones carry 0 steps), read by ledger_lines."""
    for record in ledger_lines.records(data):
        yield record.seq, record.kind, record.steps


def dump_ledger(image_path, state_dir, dump):
    """The day files and sync-anchor of <state_dir>/ledger in the image, read with debugfs."""
    shutil.rmtree(dump, ignore_errors=True)
    target = os.path.join(dump, "state")
    os.makedirs(target)
    result = subprocess.run(["debugfs", "-R", f"rdump /{state_dir}/ledger {target}", image_path],
                            capture_output=True, text=True)
    directory = os.path.join(target, "ledger")
    if not os.path.isdir(directory):
        if "File not found" in result.stderr or "not found" in result.stderr:
            return None, None
        raise SystemExit(f"replay: FAIL debugfs rdump failed: {result.stderr.strip()}")
    files = {}
    anchor = None
    for name in os.listdir(directory):
        with open(os.path.join(directory, name), "rb") as f:
            data = f.read()
        if name.endswith(".steps"):
            files[name] = data
        elif name == "sync-anchor":
            anchor = data
    return files, anchor


def count_crash_windows(entries):
    """(flush windows holding a write, flushes the replay checks): the walk of main()'s replay loop."""
    windows_with_writes = flush_checks = 0
    window_writes = False
    for entry in entries:
        if entry.flags & MARK:
            continue
        if entry.flags & FLUSH or entry.flags & FUA:
            windows_with_writes += window_writes
            flush_checks += window_writes or bool(entry.writes)
            window_writes = False
            continue
        window_writes = window_writes or bool(entry.writes)
    return windows_with_writes, flush_checks


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--log", required=True, help="the log-writes device image")
    parser.add_argument("--base", required=True, help="the data disk before the run")
    parser.add_argument("--final", required=True, help="the data disk after the run")
    parser.add_argument("--stepctl", required=True)
    parser.add_argument("--state-dir", default="stepd", help="the agent's state directory inside the file system")
    parser.add_argument("--min-states", type=int, default=500)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--final-steps", type=int, required=True, help="steps the agent counted (its stop line)")
    parser.add_argument("--work", required=True)
    args = parser.parse_args()
    started = time.monotonic()
    rng = random.Random(args.seed)
    os.makedirs(args.work, exist_ok=True)

    log, entries, sectorsize = read_log(args.log)
    with open(args.base, "rb") as f:
        image = bytearray(f.read())
    with open(args.final, "rb") as f:
        final_image = f.read()
    final_copy = os.path.join(args.work, "final.img")
    with open(final_copy, "wb") as f:
        f.write(final_image)
    final_files, _ = dump_ledger(final_copy, args.state_dir, os.path.join(args.work, "final"))
    if not final_files:
        raise SystemExit("replay: FAIL the final disk holds no ledger")
    final_detector = sum(steps for lines in final_files.values() for _, kind, steps in parse_lines(lines) if kind == "detector")

    flushes = [e.index for e in entries if e.flags & (FLUSH | FUA)]
    writes = sum(1 for e in entries if e.writes)
    marks = [e for e in entries if e.flags & MARK]
    # Random crash points go only into flush windows that hold writes, and a flush is checked only when
    # something was written since the last one; a slow VM run leaves many flushes with nothing new, so
    # the draws per window are counted from those two numbers, not from the flushes alone.
    windows_with_writes, flush_checks = count_crash_windows(entries)
    per_window = max(1, -(-max(0, args.min_states - flush_checks - 1) // max(1, windows_with_writes)))
    checker = Checker(args, final_files)
    promise = None
    promise_at_window_start = None
    window = []  # entries since the last flush, in log order
    dirty = False
    for entry in entries:
        if entry.flags & MARK:
            parsed = parse_mark(entry.mark)
            if parsed:
                promise = parsed
            window.append(entry)
            continue
        if entry.flags & FLUSH or entry.flags & FUA:
            # Random crash points inside the window, before this entry; the base is the last flush.
            candidates = [e for e in window if e.writes]
            if candidates:
                for _ in range(per_window):
                    first_write = next(i for i, e in enumerate(window) if e.writes)
                    cut = rng.randrange(first_write, len(window)) + 1
                    state = bytearray(image)
                    cut_promise = promise_at_window_start
                    for e in window[:cut]:
                        if e.flags & MARK and parse_mark(e.mark):
                            cut_promise = parse_mark(e.mark)
                    chosen = [e for e in window[:cut] if e.writes and (e.flags & FUA or rng.random() < 0.5)]
                    if not chosen:
                        # "Nothing reached the disk" is the previous flush state, checked already.
                        chosen = [rng.choice([e for e in window[:cut] if e.writes])]
                    for e in chosen:
                        if e.flags & FUA:
                            apply(state, log, e, sectorsize)
                        else:
                            if e.nr_sectors > 1 and rng.random() < 0.3:
                                sectors = [s for s in range(e.nr_sectors) if rng.random() < 0.5]
                                sectors = superblock_whole(e, sectorsize, sectors, rng, checker.figures)
                                checker.figures["torn_writes"] += 1
                                apply(state, log, e, sectorsize, sectors)
                            else:
                                apply(state, log, e, sectorsize)
                    checker.check(state, cut_promise, f"entry {window[cut - 1].index} (random)", "between")
            for e in window:
                apply(image, log, e, sectorsize)
                dirty = dirty or e.writes
            apply(image, log, entry, sectorsize)
            dirty = dirty or entry.writes
            window = []
            promise_at_window_start = promise
            if dirty:
                checker.check(image, promise, f"entry {entry.index} ({'flush' if entry.flags & FLUSH else 'FUA'})",
                              "at_flush" if entry.flags & FLUSH else "at_fua")
                dirty = False
            continue
        window.append(entry)
    for e in window:
        apply(image, log, e, sectorsize)
    reproduced = bytes(image) == final_image
    checker.check(image, promise, "end of the log", "at_flush")
    f = checker.figures
    if not reproduced:
        checker.fail("end of the log", "replaying the whole log does not reproduce the final disk byte for byte")
    if final_detector != args.final_steps:
        checker.fail("final disk", f"{final_detector} detector steps in the ledger, the agent counted {args.final_steps}")
    elapsed = time.monotonic() - started
    rows = [
        ("log entries (writes, flush/FUA, marks)", f"{len(entries)} ({writes}, {len(flushes)}, {len(marks)})"),
        ("crash states checked", f["states"]),
        ("  at a flush / at a FUA write", f"{f['at_flush']} / {f['at_fua']}"),
        ("  between flushes (random subsets)", f"{f['between']} ({f['torn_writes']} torn writes)"),
        ("  torn writes keeping the superblock's 1 KiB whole", f["superblock_kept_whole"]),
        ("  with a ledger directory / after a durable mark", f"{f['with_ledger']} / {f['promised_states']}"),
        ("e2fsck: inconsistent / journal replayed", f"{f['fsck_errors']} / {f['fsck_fixed']}"),
        ("corrupt records (torn tails apart)", f["corrupt"]),
        ("torn tails (cut by the agent at start)", f["torn_tails"]),
        ("duplicated records", f["duplicates"]),
        ("records changed vs the final ledger", f["changed_records"]),
        ("durable records missing", f["durable_missing"]),
        ("sync anchor ahead of the records", f["anchor_ahead"]),
        (f"steps lost, worst (max {MAX_STEP_LOSS})", f["worst_lost"]),
        ("replay reproduces the final disk", "yes" if reproduced else "NO"),
        ("final ledger detector steps / counted", f"{final_detector} / {args.final_steps}"),
        ("elapsed", f"{elapsed:.0f} s"),
    ]
    for label, value in rows:
        print(f"{label:<50} {value}")
    for failure in checker.failures:
        print(f"FAIL: {failure}", file=sys.stderr)
    ok = not checker.failures and f["states"] >= args.min_states
    if f["states"] < args.min_states:
        print(f"FAIL: only {f['states']} crash states, fewer than {args.min_states}", file=sys.stderr)
    summary = (f"{f['states']} crash states ({f['at_flush']} at flushes, {f['at_fua']} at FUA, {f['between']} between), "
               f"{f['corrupt']} corrupt, {f['duplicates']} duplicates, {f['durable_missing']} durable records missing, "
               f"worst {f['worst_lost']} steps lost (max {MAX_STEP_LOSS}), {f['torn_tails']} torn tails, "
               f"{f['fsck_errors']} fsck errors")
    print(f"replay: {'PASS' if ok else 'FAIL'} {summary}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

"""The step ledger's record lines (docs/ledger.md, "Files"), for the scripts that read day files.

One record per line, fields separated by one space:

    S1 <seq> <start-ms> <end-ms> <utc-offset-s> <steps> <distance-m> <activity> <kind> <source-id> <flags> <deletes> <crc32c>

scripts/soak (the step balance of a simulated week) and scripts/power_loss_replay.py (the ledger
at every crash point) both read day files through this module, so the format has one reader in
Python as `Sources/Ledger` is its one reader in Swift. It reads the layout only: whether a record
is sound (checksum, canonical spelling, a torn tail) is `stepctl ledger verify`'s to say, which
both scripts run as well. A line that is not a version-S1 record of 13 fields with integer
numbers is no record here (None), as the agent's own scanner refuses it.
"""
from typing import Iterator, NamedTuple, Optional, Union

VERSION = "S1"
FIELD_COUNT = 13


class Record(NamedTuple):
    seq: int
    start_ms: int
    end_ms: int
    utc_offset_s: int
    steps: int
    distance_m: str
    activity: str
    kind: str          # detector, device, app or manual
    source_id: str
    flags: str         # -, u (user entered), t (tombstone), ut
    deletes: int       # the sequence a tombstone deletes, else 0
    crc32c: str

    @property
    def tombstone(self) -> bool:
        # `ut` is the tombstone of a user-entered sample: a test for "t" alone would miss it.
        return "t" in self.flags


def parse_line(line: Union[str, bytes]) -> Optional[Record]:
    """The record on one line (with or without its newline), or None when it holds none."""
    if isinstance(line, bytes):
        line = line.decode("utf-8", "replace")
    fields = line.rstrip("\n").split(" ")
    if len(fields) != FIELD_COUNT or fields[0] != VERSION:
        return None
    try:
        seq, start, end, offset, steps = (int(value) for value in fields[1:6])
        deletes = int(fields[11])
    except ValueError:
        return None
    return Record(seq, start, end, offset, steps, fields[6], fields[7], fields[8], fields[9], fields[10], deletes, fields[12])


def records(data: Union[str, bytes]) -> Iterator[Record]:
    """The records of a day file's contents (or any part of them), in file order."""
    for line in data.split(b"\n" if isinstance(data, bytes) else "\n"):
        record = parse_line(line)
        if record is not None:
            yield record


def read_day_file(path: str) -> list:
    """The records of one day file."""
    with open(path, "rb") as f:
        return list(records(f.read()))

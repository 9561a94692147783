"""Made-up control words around LDGs: which instructions nvdisasm prints as a dual-issue pair.

Writes tests/sass/data/control_madeup.jsonl.gz: control word, the three LDG words, and for each
slot whether nvdisasm wrapped the instruction in ``{ ... }``.  Slot 2 is never dual-issue (a pair
cannot cross a group), and at most one of slots 0 and 1 is (nvdisasm drops the text of a third
instruction after two dual slots in a row).
"""
from __future__ import annotations

import random
import struct
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "src"))
from ptxld.spec import ldg as spec  # noqa: E402
from sass_gt_common import DATA, nvdisasm, parse_listing, write_jsonl_gz  # noqa: E402

PAD_CONTROL = 0x001F8000FC0007E0


def main() -> None:
    rng = random.Random(7)
    rows = []
    for arch in ("sm_50", "sm_61"):
        for _ in range(150):
            slots = [rng.getrandbits(spec.CONTROL_SLOT_BITS) for _ in range(3)]
            slots = [s | rng.randrange(1, 16) if s & 0xF == 0 else s for s in slots]
            dual = rng.choice([None, 0, 1])
            if dual is not None:
                slots[dual] = (slots[dual] & ~0x1F) | 0x10  # stall 0, yield bit 1
            ctrl = sum(s << (spec.CONTROL_SLOT_BITS * k) for k, s in enumerate(slots))
            words = [0xEED4200001070404 | rng.getrandbits(8) << 8 | rng.getrandbits(8)
                     for _ in range(3)]
            with tempfile.TemporaryDirectory() as tmp:
                path = Path(tmp) / "c.bin"
                path.write_bytes(struct.pack("<4Q", ctrl, *words)
                                 + struct.pack("<4Q", PAD_CONTROL, *words))
                rc, out, err = nvdisasm(path, arch)
            if rc:
                raise RuntimeError(err)
            listing = parse_listing(out)
            rows.append({"arch": arch, "control": f"{ctrl:#018x}",
                         "words": [f"{w:#018x}" for w in words],
                         "texts": [listing[8 * (k + 1)]["text"] for k in range(3)],
                         "paired": [listing[8 * (k + 1)]["paired"] for k in range(3)]})
    print(write_jsonl_gz(DATA / "control_madeup.jsonl.gz", rows), "control rows")


if __name__ == "__main__":
    main()

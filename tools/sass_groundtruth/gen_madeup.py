"""Made-up LDG / sparse LDG / LD words covering every field value, disassembled by nvdisasm.

Writes tests/sass/data/words_madeup.jsonl.gz: one row per (arch, word) with nvdisasm's text, or
its error for words it rejects (the sparse form on sm_50).  Words are built from the field
table with a fixed random seed; unused bits are 0 except in rows marked "unused_bits", which
check that nvdisasm ignores them.  The control words of the groups are random too, and each row
records its slot and whether nvdisasm printed the instruction inside a dual-issue brace.
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


def field_word(form: spec.Form, values: dict) -> int:
    word = form.opcode_value
    for f in form.fields:
        word |= (values[f.name] << f.lo) & f.mask
    return word


def imm_values(bits: int, rng: random.Random) -> list[int]:
    top = (1 << bits) - 1
    edges = [0, 1, 0x10, top, top - 0xF, 1 << (bits - 1), (1 << (bits - 1)) - 1]
    return edges + [rng.getrandbits(bits) for _ in range(8)]


def words_for(form: spec.Form, rng: random.Random, count: int) -> list[int]:
    """Every value of every field appears at least once; the rest is random."""
    out = []
    choices = {f.name: list(range(1 << f.width)) if f.width <= 4 else None for f in form.fields}
    regs = [0, 1, 2, 3, 4, 7, 8, 15, 16, 63, 64, 127, 128, 200, 253, 254, 255]
    for i in range(count):
        vals = {}
        for f in form.fields:
            if f.name == "imm":
                vals[f.name] = rng.choice(imm_values(f.width, rng))
            elif f.name in ("ra", "rd") and i < 256:   # every register in both places
                vals[f.name] = i if f.name == "rd" else (i * 37 + 11) % 256
            elif f.name in ("ra", "rd"):
                vals[f.name] = rng.choice(regs) if rng.random() < 0.6 else rng.getrandbits(8)
            else:
                opts = choices[f.name]
                vals[f.name] = opts[i % len(opts)] if i < 64 else rng.choice(opts)
        out.append(field_word(form, vals))
    # sweep: every size x cop x e combination with a plain address
    for size in range(8):
        for cop in range(4):
            for e in range(2):
                base = {f.name: 0 for f in form.fields}
                base.update(size=size, cop=cop, e=e, pred=7, ra=4, rd=8, imm=0x10)
                if "ps" in base:
                    base["ps"] = rng.randrange(8)
                if "p" in base:
                    base["p"] = rng.randrange(8)
                out.append(field_word(form, base))
    return out


def main() -> None:
    rng = random.Random(20240601)
    counts = {"ldg": 700, "ldg_sparse": 260, "ld": 300}
    rows = []
    for arch in spec.ARCHES:
        for form in spec.FORMS:
            words = words_for(form, rng, counts[form.name])
            dirty = [w | (rng.getrandbits(64) & form.unused_mask) for w in words[:20]]
            dirty = [w for w in dirty if w & form.unused_mask]
            rows += run(arch, form, words, unused=False, rng=rng)
            rows += run(arch, form, dirty, unused=True, rng=rng)
    n = write_jsonl_gz(DATA / "words_madeup.jsonl.gz", rows)
    print(f"{n} made-up rows")


def random_control(rng) -> int:
    """Random slots, but never a dual-issue slot (stall 0 with yield bit 1): nvdisasm reports
    "Unaligned instruction" for pairs it cannot form, which would hide the instruction text."""
    word = 0
    for k in range(spec.CONTROL_SLOTS):
        slot = rng.getrandbits(spec.CONTROL_SLOT_BITS)
        if slot & 0xF == 0:
            slot |= rng.randrange(1, 16)
        word |= slot << (spec.CONTROL_SLOT_BITS * k)
    return word


def disassemble_batch(arch: str, groups: list) -> dict[int, dict | str]:
    """(group index, slot) -> listing entry, or nvdisasm's error for that word.

    A batch that nvdisasm rejects is split in halves until each rejected word stands alone."""
    if not groups:
        return {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "raw.bin"
        path.write_bytes(b"".join(struct.pack("<4Q", c, *ws) for _, c, ws in groups))
        rc, out, err = nvdisasm(path, arch)
    if rc == 0:
        listing = parse_listing(out)
        return {(g, k): listing[j * 32 + 8 * (k + 1)]
                for j, (g, _, ws) in enumerate(groups) for k in range(3)}
    if len(groups) == 1 and len(set(groups[0][2])) == 1:
        g = groups[0][0]
        msg = (err.strip().splitlines() or ["no output"])[0]
        return {(g, k): msg for k in range(3)}
    if len(groups) == 1:  # split the three words of one group apart
        g, c, ws = groups[0]
        out = {}
        for k, w in enumerate(ws):
            out[(g, k)] = disassemble_batch(arch, [(g, c, [w, w, w])])[(g, 0)]
        return out
    half = len(groups) // 2
    return {**disassemble_batch(arch, groups[:half]), **disassemble_batch(arch, groups[half:])}


def run(arch: str, form: spec.Form, words: list[int], *, unused: bool, rng) -> list[dict]:
    words = list(dict.fromkeys(words))
    n = len(words)
    while len(words) % 3:
        words.append(words[0])
    groups = [(i // 3, random_control(rng), words[i:i + 3]) for i in range(0, len(words), 3)]
    result = disassemble_batch(arch, groups)
    rows = []
    for i, w in enumerate(words[:n]):
        g, k = divmod(i, 3)
        ctrl = groups[g][1]
        row = {"arch": arch, "form": form.name, "word": f"{w:#018x}",
               "control": f"{ctrl:#018x}", "slot": k}
        entry = result[(g, k)]
        if isinstance(entry, str):
            row["error"] = entry
        else:
            row["text"] = entry["text"]
        if unused:
            row["unused_bits"] = True
        rows.append(row)
    return rows


if __name__ == "__main__":
    main()

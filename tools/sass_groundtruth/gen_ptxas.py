"""Compile every PTX load variant with ptxas and record what NVIDIA's tools make of it.

Writes
* tests/sass/data/lowering_sm50.jsonl.gz: per variant, the PTX load line, the kernel, and the
  LDG/LD instructions (plus, for uniform addresses, the IADD32I/IADD.X that split an offset)
  that ptxas 12.9 emits for sm_50, or ptxas's error;
* tests/sass/data/words_ptxas.jsonl.gz: every LDG/LD word ptxas emitted (sm_50/52/53/60/61 with
  ptxas 12.9, and sm_50/sm_61 with ptxas 11.8 -m32 for the forms without .E), with nvdisasm's
  text, the group's control word, the slot and whether nvdisasm printed a dual-issue brace;
* tests/sass/data/tools.json: the tool versions.
"""
from __future__ import annotations

import gzip
import json
import sys
import re
import subprocess
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import sass_gt_variants as V
from sass_gt_common import (DATA, PTXAS11, PTXAS12, nvdisasm, parse_listing, text_sections,
                    tool_versions, write_jsonl_gz)

ARCHES = ["sm_50", "sm_52", "sm_53", "sm_60", "sm_61"]
LOAD = re.compile(r"^(?:@!?P\w+\s+)?LDG?(?:\.|\s)")
SPLIT = re.compile(r"^(?:@!?P\w+\s+)?(IADD32I|IADD\.X|IADD32I\.X)\b")


def compile_module(ptxas: Path, ptx: str, arch: str, extra=()) -> tuple[bytes | None, str]:
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        src.write_text(ptx)
        p = subprocess.run([str(ptxas), f"-arch={arch}", *extra, str(src), "-o", str(out)],
                           capture_output=True, text=True)
        if p.returncode != 0:
            msg = [l for l in p.stderr.splitlines() if "error" in l.lower()] or [p.stderr.strip()]
            return None, re.sub(r"^.*?k\.ptx", "k.ptx", msg[0].strip())
        return out.read_bytes(), p.stderr.strip()


def listing_of(cubin: bytes) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "k.cubin"
        path.write_bytes(cubin)
        rc, out, err = nvdisasm(path)
    if rc:
        raise RuntimeError(err)
    return parse_listing(out, by_section=True)


def word_rows(cubin: bytes, arch: str, tool: str, names: dict[str, V.Variant]) -> list[dict]:
    listing = listing_of(cubin)
    rows = []
    for sec, data in text_sections(cubin).items():
        for (s, off), entry in sorted(listing.items(), key=lambda kv: kv[0][1]):
            if s != sec or not LOAD.match(entry["text"]):
                continue
            word = int.from_bytes(data[off:off + 8], "little")
            base = off - off % 32
            ctrl = int.from_bytes(data[base:base + 8], "little")
            rows.append({"arch": arch, "word": f"{word:#018x}", "text": entry["text"],
                         "control": f"{ctrl:#018x}", "slot": off % 32 // 8 - 1,
                         "paired": entry["paired"], "ptx": names[sec[len(".text."):]].ptx,
                         "uniform": names[sec[len(".text."):]].uniform, "ptxas": tool})
    return rows


def lowering_row(v: V.Variant, versions) -> dict:
    ptx = V.module([V.kernel("k", v)])
    cubin, msg = compile_module(PTXAS12, ptx, "sm_50")
    row = {"ptx": v.ptx, "uniform": v.uniform, "kernel": ptx, "ptxas": versions["ptxas"]}
    if cubin is None:
        row["error"] = msg
        return row
    texts = [e["text"] for _, e in sorted(listing_of(cubin).items(), key=lambda kv: kv[0][1])]
    row["loads"] = [t for t in texts if LOAD.match(t)]
    row["address_ops"] = [t for t in texts if SPLIT.match(t)] if v.uniform else None
    row["listing"] = texts
    return row


def _offset(ptx: str) -> int:
    m = re.search(r"\+(-?\d+)\]", ptx)
    return int(m.group(1)) if m else 0


def main() -> None:
    versions = tool_versions()
    variants = V.all_variants()
    rejected = [V.Variant(p, False, False, ("%r1",), 32) for p in V.REJECTED]
    if "--words-only" in sys.argv:   # reuse the committed lowering vectors
        done = {json.loads(l)["ptx"]: json.loads(l) for l in gzip.open(DATA / "lowering_sm50.jsonl.gz")}
        rows = [done[v.ptx] for v in variants]
    else:
        with ThreadPoolExecutor(2) as pool:
            rows = list(pool.map(lambda v: lowering_row(v, versions), variants + rejected))
        n = write_jsonl_gz(DATA / "lowering_sm50.jsonl.gz", rows)
        print(f"{n} lowering rows")
    ok = [v for v, r in zip(variants, rows) if "error" not in r]
    print(f"{len(ok)} variants compiled")

    words = []
    names = {f"k{i}": v for i, v in enumerate(ok)}
    big = V.module([V.kernel(f"k{i}", v) for i, v in enumerate(ok)])
    for arch in ARCHES:
        cubin, msg = compile_module(PTXAS12, big.replace(".target sm_50", f".target {arch}"), arch)
        if cubin is None:
            raise RuntimeError(msg)
        words += word_rows(cubin, arch, f"ptxas {versions['ptxas']}", names)
    # 32-bit addressing: offsets must fit 32 bits; generic loads only from a per-thread address
    m32 = [v for v in ok if not v.symbol and not v.pred and abs(_offset(v.ptx)) < 2**31
           and not (v.generic and v.uniform)]
    names32 = {f"k{i}": v for i, v in enumerate(m32)}
    big32 = V.module([V.kernel(f"k{i}", v, address_size=32) for i, v in enumerate(m32)],
                     address_size=32)
    for arch in ("sm_50", "sm_61"):
        cubin, msg = compile_module(PTXAS11, big32.replace(".target sm_50", f".target {arch}"),
                                    arch, ["-m32"])
        if cubin is None:
            raise RuntimeError(msg)
        words += word_rows(cubin, arch, f"ptxas {versions['ptxas_m32']} -m32", names32)
    unique = {}
    for w in words:
        unique.setdefault((w["arch"], w["word"], w["control"], w["slot"]), w)
    n = write_jsonl_gz(DATA / "words_ptxas.jsonl.gz", unique.values())
    print(f"{n} real words ({len({(w['arch'], w['word']) for w in words})} distinct arch+word)")
    (DATA / "tools.json").write_text(json.dumps(versions, indent=1) + "\n")


if __name__ == "__main__":
    main()

"""The NumPy references of the kernel corpus against what a GPU computed from the same PTX.

tests/kernels/data/hardware_*.jsonl are written by tools/hw/gpu_cases.py on real hardware (the
device is named in every record): the committed PTX went through the driver's JIT, the inputs
came from each case's `make_args`, and the record keeps a SHA-256 of every output buffer (and
the bytes themselves where the case compares other than exactly). Here, without a GPU, every
reference must reproduce the hardware's bytes (or sit within the case's tolerance of them), so a
reference cannot drift from what the hardware does, and the emulator tests that compare against
the references compare against the hardware too.
"""
from __future__ import annotations

import base64
import hashlib
import json
import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

KERNELS = Path(__file__).resolve().parent
sys.path.insert(0, str(KERNELS))
import cases as manifest  # noqa: E402
from all_cases import by_name  # noqa: E402

RECORD_FILES = sorted((KERNELS / "data").glob("hardware_*.jsonl"))
RECORDS = [json.loads(line) for path in RECORD_FILES for line in path.read_text().splitlines()]


CASES = by_name()
# Cases the hardware refused: the record's message, and why the case stays in the corpus.
HARDWARE_REFUSED = {
    # tools/hw/tma_probe.py (data/tma_probe_h200.jsonl): only the CTA whose box starts at
    # (x, y, z) = (-3, -2, -1), negative in every dimension, is refused, with or without the
    # traversal stride; boxes at (-8, 9, 2), (16, 8, 2) and inside the tensor load. Which rule the
    # TMA unit enforces there is not established yet (the ISA text allows negative coordinates).
    "tma_load_3d_strided": "CUDA_ERROR_ILLEGAL_INSTRUCTION on an H200 (driver 580.159)",
    # a rank-1 and a rank-5 tensor copy on one barrier; refused with the boxes inside the tensor
    # too, so not for their coordinates; which copy the hardware refuses is not established
    "async_tma_rank15": "CUDA_ERROR_ILLEGAL_INSTRUCTION on an H200 (driver 580.159)",
}


def test_records_cover_the_corpus():
    assert RECORDS, "no hardware record committed"
    recorded = {(r["case"], r["ptx"]) for r in RECORDS}
    # every case and PTX file that existed when the record was taken is in it; newer ones may not be
    assert len(recorded) >= 247
    assert all(r["status"] in ("match", "differs", "error") for r in RECORDS)


@pytest.mark.parametrize("record", [r for r in RECORDS if r["status"] != "error"],
                         ids=lambda r: f"{r['case']}-{r['ptx'].split('/')[1]}")
def test_reference_reproduces_the_hardware(record):
    case = CASES.get(record["case"])
    if case is None:
        pytest.fail(f"hardware record for {record['case']}, which the manifest no longer has: re-record")
    args = case.make_args()
    expected = case.reference(args)
    modes = dict(zip(case.outputs, case.compare))
    for out, want in zip(record["outputs"], expected):
        want = np.ascontiguousarray(want).reshape(-1).astype(out["dtype"], copy=False)
        if modes[out["index"]]["mode"] == "exact":
            assert hashlib.sha256(want.tobytes()).hexdigest() == out["sha256"], \
                f"{case.name}: output {out['index']} differs from the hardware's"
        else:
            got = np.frombuffer(zlib.decompress(base64.b64decode(out["data"])), out["dtype"])
            manifest.assert_matches(modes[out["index"]], got, want)


def test_hardware_refusals_are_known():
    refused = {r["case"]: r["message"] for r in RECORDS if r["status"] == "error"}
    assert set(refused) == set(HARDWARE_REFUSED), refused


PROBE = [json.loads(line) for line in (KERNELS / "data" / "tma_probe_h200.jsonl").read_text().splitlines()]


def test_the_probe_supports_what_the_docs_say_of_it():
    """docs/async-copies.md: in tma_probe_h200.jsonl every refused run has a box starting below
    zero in every dimension, no run that ran does, a start negative in x alone ran, and the
    traversal stride changes no verdict. (Which finer rule applies the data cannot tell.)"""
    def all_negative(run):
        return any(all(c < 0 for c in start) for start in run["coords"])
    refused = [r for r in PROBE if r["result"] != "ran"]
    ran = [r for r in PROBE if r["result"] == "ran"]
    assert refused and ran
    assert all("CUDA_ERROR_ILLEGAL_INSTRUCTION" in r["result"] for r in refused)
    assert all(all_negative(r) for r in refused) and not any(all_negative(r) for r in ran)
    assert any(s[0] < 0 and min(s[1:]) >= 0 for r in ran for s in r["coords"])
    assert {tuple(r["element_strides"]) for r in refused} == {(1, 2, 1), (1, 1, 1)}
    # the case keeps the refused start, so its record stays a refusal
    assert [-3, -2, -1] in CASES["tma_load_3d_strided"].make_args()[2].reshape(-1, 3).tolist()

"""Which tensor copy does the hardware refuse, and why? One variant per process (an illegal
instruction poisons the CUDA context):  python tools/hw/tma_probe.py INDEX  (--list: the variants)
Prints one JSON line: the variant and the driver's verdict.

Variants 0-7 probe tma_load_3d_strided (their verdicts are tests/kernels/data/tma_probe_h200.jsonl:
only a box starting negative in every dimension was refused). 8-14 separate the rules that data
leaves open: a start negative in y alone, z alone, two dimensions, all three with unit strides.
15-16 run async_tma_rank15 with one of its two copies removed from the committed PTX (and the
barrier's expected bytes cut to match), to tell whether the rank-1 or the rank-5 copy is refused.
"""
import dataclasses
import json
import re
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests" / "kernels"))
import cases_async as casync  # noqa: E402  (tests/kernels is on the path once gpu_cases is imported)
import cases_sm90 as s90  # noqa: E402

KERNELS = Path(__file__).resolve().parents[2] / "tests" / "kernels"
S3 = next(c for c in s90.CASES_SM90 if c.name == "tma_load_3d_strided")
R15 = next(c for c in casync.CASES_ASYNC if c.name == "async_tma_rank15")

VARIANTS = [("coords", [c], (1, 2, 1)) for c in s90.S3_COORDS] + [
    ("coords", list(s90.S3_COORDS), (1, 1, 1)),
    ("coords", [(0, 0, 0)], (1, 2, 1)),
    ("coords", [(0, 0, 0)], (2, 1, 1)),
    ("coords", [(0, 0, 0)], (1, 1, 2)),
    # one negative start coordinate at a time, then pairs, then all three (unit strides)
    ("coords", [(3, -2, 1)], (1, 1, 1)),
    ("coords", [(3, 2, -1)], (1, 1, 1)),
    ("coords", [(3, -2, -1)], (1, 1, 1)),
    ("coords", [(-3, -2, 1)], (1, 1, 1)),
    ("coords", [(-3, 2, -1)], (1, 1, 1)),
    ("coords", [(-3, -2, -1)], (1, 1, 1)),
    ("coords", [(-1, -1, -1)], (1, 1, 1)),
    ("rank15", "1d", None),
    ("rank15", "5d", None),
]


def rank15_only(ptx: str, keep: str) -> str:
    """The committed async_tma_rank15 PTX with the other copy removed and the barrier's
    expect-tx bytes (128 for the 1-D box, 256 for the 5-D one, 384 for both) cut to `keep`'s."""
    drop = "5d" if keep == "1d" else "1d"
    lines = ptx.splitlines()
    copies = [i for i, line in enumerate(lines) if f"cp.async.bulk.tensor.{drop}." in line]
    if len(copies) != 1:
        raise SystemExit(f"expected one .{drop} tensor copy in the PTX, found {len(copies)}")
    del lines[copies[0]]
    out = "\n".join(lines) + "\n"
    out, n = re.subn(r"mov\.u32\s+(%r\d+), 384;", rf"mov.u32 \1, {128 if keep == '1d' else 256};", out)
    if n != 1:
        raise SystemExit(f"expected one expect-tx constant 384 in the PTX, found {n}")
    return out


def main():
    if sys.argv[1:] == ["--list"]:
        for i, v in enumerate(VARIANTS):
            print(i, json.dumps(v))
        return
    import gpu_cases as g        # needs the CUDA driver bindings: only where a GPU is

    g.check(g.cu.cuInit(0))
    dev = g.check(g.cu.cuDeviceGet(0))
    g.check(g.cu.cuCtxSetCurrent(g.check(g.cu.cuDevicePrimaryCtxRetain(dev))))
    kind, what, strides = VARIANTS[int(sys.argv[1])]
    if kind == "coords":
        def make():
            args = S3.make_args()
            args[0] = dataclasses.replace(args[0], element_strides=strides)
            args[2] = np.array(what, np.int32).ravel()
            args[3] = np.zeros(len(what) * 32, np.float32)
            return args

        case = dataclasses.replace(S3, make_args=make, grid=(len(what), 1, 1),
                                   reference=lambda args: [np.zeros(len(what) * 32, np.float32)])
        ptx = S3.ptx[0]
        record = {"coords": what, "element_strides": strides}
    else:
        tmp = Path(tempfile.mkdtemp()) / f"rank15_{what}.ptx"
        tmp.write_text(rank15_only((KERNELS / R15.ptx[0]).read_text(), what))
        case = dataclasses.replace(R15, reference=lambda args: [np.zeros(len(casync.R15_AT) * 96, np.float32)])
        ptx = str(tmp)                   # an absolute path: run_case reads KERNELS / ptx
        record = {"case": "async_tma_rank15", "only": what}
    try:
        g.run_case(case, ptx)
        status = "ran"                   # the reference here is a placeholder: only "ran" matters
    except Exception as e:
        status = f"{type(e).__name__}: {e}"
    print(json.dumps({**record, "result": status}))


if __name__ == "__main__":
    main()

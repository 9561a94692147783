"""Which part of tma_load_3d_strided does the hardware refuse? One variant per process (an
illegal instruction poisons the CUDA context):  python tools/hw/tma_probe.py INDEX
Prints one JSON line: the variant and the driver's verdict."""
import dataclasses
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import gpu_cases as g  # noqa: E402
import cases_sm90 as s90  # noqa: E402  (gpu_cases put tests/kernels on the path)

BASE = next(c for c in s90.CASES_SM90 if c.name == "tma_load_3d_strided")
VARIANTS = [("coords", [c], (1, 2, 1)) for c in s90.S3_COORDS] + [
    ("coords", list(s90.S3_COORDS), (1, 1, 1)),
    ("coords", [(0, 0, 0)], (1, 2, 1)),
    ("coords", [(0, 0, 0)], (2, 1, 1)),
    ("coords", [(0, 0, 0)], (1, 1, 2)),
]


def main():
    g.check(g.cu.cuInit(0))
    dev = g.check(g.cu.cuDeviceGet(0))
    g.check(g.cu.cuCtxSetCurrent(g.check(g.cu.cuDevicePrimaryCtxRetain(dev))))
    _, coords, strides = VARIANTS[int(sys.argv[1])]

    def make():
        args = BASE.make_args()
        args[0] = dataclasses.replace(args[0], element_strides=strides)
        args[2] = np.array(coords, np.int32).ravel()
        args[3] = np.zeros(len(coords) * 32, np.float32)
        return args

    case = dataclasses.replace(BASE, make_args=make, grid=(len(coords), 1, 1),
                               reference=lambda args: [np.zeros(len(coords) * 32, np.float32)])
    try:
        status = g.run_case(case, BASE.ptx[0])["status"]
        status = "ran"                       # the reference here is a placeholder: only "ran" matters
    except Exception as e:
        status = f"{type(e).__name__}: {e}"
    print(json.dumps({"coords": coords, "element_strides": strides, "result": status}))


main()

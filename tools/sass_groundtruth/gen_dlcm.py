"""What ptxas's -dlcm/-flcm options do to a load's SASS: tests/sass/data/dlcm_sm50.json.

Each load below is compiled alone for sm_50 with ptxas 12.9 under every -dlcm and -flcm value
(and none), and the load instruction nvdisasm prints is recorded. The loads cover a plain global
load, every explicit cache operator, `.nc`, `.volatile`, a generic load and a uniform 128-bit
load (the `.U.128` case). Run: `python gen_dlcm.py` (tools from install_tools.sh).
"""
from __future__ import annotations

import json
import re
import subprocess
import tempfile
from pathlib import Path

from sass_gt_common import DATA, NVDISASM, PTXAS12, parse_listing, tool_versions

LOADS = [
    ("ld.global.u32 %r1, [%rd3];", False),
    ("ld.global.ca.u32 %r1, [%rd3];", False),
    ("ld.global.cg.u32 %r1, [%rd3];", False),
    ("ld.global.cs.u32 %r1, [%rd3];", False),
    ("ld.global.lu.u32 %r1, [%rd3];", False),
    ("ld.global.cv.u32 %r1, [%rd3];", False),
    ("ld.global.nc.u32 %r1, [%rd3];", False),
    ("ld.global.nc.cg.u32 %r1, [%rd3];", False),
    ("ld.volatile.global.u32 %r1, [%rd3];", False),
    ("ld.u32 %r1, [%rd3];", False),
    ("ld.global.v4.u32 {%r1, %r2, %r3, %r4}, [%rd1];", True),
    ("ld.global.v2.u64 {%rd10, %rd11}, [%rd1];", True),
]
OPTIONS = [None] + [f"-dlcm={c}" for c in ("ca", "cg", "cs", "cv")] + [f"-flcm={c}" for c in ("ca", "cg", "cs", "cv")]

KERNEL = """.version 7.0
.target sm_50
.address_size 64
.visible .entry k(.param .u64 p, .param .u64 q)
{{
  .reg .b32 %r<20>; .reg .b64 %rd<20>;
  ld.param.u64 %rd1, [p];
  ld.param.u64 %rd2, [q];
  cvta.to.global.u64 %rd1, %rd1;
  cvta.to.global.u64 %rd4, %rd2;
  mov.u32 %r18, %tid.x;
  mul.wide.u32 %rd9, %r18, 64;
  add.s64 %rd3, %rd1, %rd9;
  {load}
  st.global.b32 [%rd4+0], %r1;
  st.global.b32 [%rd4+4], %r2;
  st.global.b32 [%rd4+8], %r3;
  st.global.b32 [%rd4+12], %r4;
  st.global.b64 [%rd4+16], %rd10;
  st.global.b64 [%rd4+24], %rd11;
  ret;
}}
"""
_LOAD = re.compile(r"^(LDG|LD)\.")


def main() -> None:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        ptx, cubin = Path(tmp) / "k.ptx", Path(tmp) / "k.cubin"
        for load, uniform in LOADS:
            ptx.write_text(KERNEL.format(load=load))
            for option in OPTIONS:
                cmd = [str(PTXAS12), "-arch=sm_50"] + ([option] if option else []) + [str(ptx), "-o", str(cubin)]
                subprocess.run(cmd, check=True, capture_output=True)
                listing = subprocess.run([str(NVDISASM), str(cubin)], check=True, capture_output=True,
                                         text=True).stdout
                sass = [x["text"] for x in parse_listing(listing).values() if _LOAD.match(x["text"])]
                rows.append({"ptx": load, "uniform": uniform, "option": option, "sass": sass})
    out = {"tools": tool_versions(), "arch": "sm_50", "rows": rows}
    (DATA / "dlcm_sm50.json").write_text(json.dumps(out, indent=1) + "\n")
    print(f"{len(rows)} rows")


if __name__ == "__main__":
    main()

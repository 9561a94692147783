"""A small cubin (ptxas 12.9, sm_52) and nvdisasm's listing of it, for the ELF reader's tests."""
from __future__ import annotations

import sass_gt_variants as V
from sass_gt_common import DATA, PTXAS12, nvdisasm
from gen_ptxas import compile_module

LOADS = ["ld.global.nc.v4.f32 {%f1, %f2, %f3, %f4}, [%rd3+-16];", "ld.global.s8 %r1, [%rd3+8388608];",
         "ld.cg.v2.u32 {%r1, %r2}, [%rd6+16];", "ld.volatile.global.u16 %r1, [%rd3];"]


def main() -> None:
    kernels = []
    for i, line in enumerate(LOADS):
        generic = line.startswith("ld.cg")
        v = V.Variant(line, uniform="+-16" in line or "8388608" in line, generic=generic,
                      dests=tuple(d.strip("{}, ") for d in line.split("[")[0].split()[1:]),
                      bits=32)
        kernels.append(V.kernel(f"k{i}", v))
    ptx = V.module(kernels).replace(".target sm_50", ".target sm_52")
    cubin, msg = compile_module(PTXAS12, ptx, "sm_52")
    if cubin is None:
        raise RuntimeError(msg)
    (DATA / "kernel_sm52.cubin").write_bytes(cubin)
    (DATA / "kernel_sm52.ptx").write_text(ptx)
    rc, out, err = nvdisasm(DATA / "kernel_sm52.cubin")
    (DATA / "kernel_sm52.nvdisasm.txt").write_text(out)


if __name__ == "__main__":
    main()

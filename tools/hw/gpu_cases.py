"""Run every case of the kernel corpus on a real GPU and record what the hardware computed.

    python tools/hw/gpu_cases.py OUT_DIR [--match SUBSTRING]

Needs an NVIDIA GPU, the CUDA driver and the `cuda-bindings` package (cuda.bindings.driver);
nothing in ptxld is imported: the PTX goes to the driver's JIT exactly as committed, the
arguments are built by the manifest's `make_args`, tensor maps by cuTensorMapEncodeTiled/Im2col.
For every (case, PTX file) it appends one JSON line to OUT_DIR/results.jsonl:

    {"case", "ptx", "device", "status": "match" | "differs" | "error", "message",
     "outputs": [{"index", "sha256", "dtype", "size", "data"?}]}

where "match" means the hardware output equals the case's NumPy reference under the case's
comparison mode, and the sha256 is of the hardware's output bytes. Outputs compared other than
exactly also carry "data" (zlib-compressed bytes, base64), so a test can measure the distance of
the reference and the emulator to the hardware without a GPU. A launch that leaves the CUDA
context unusable (an illegal address) is recorded and the script restarts itself, skipping
what is already recorded.
"""
from __future__ import annotations

import argparse
import base64
import ctypes
import hashlib
import json
import os
import re
import sys
import traceback
import zlib
from pathlib import Path

import numpy as np
from cuda.bindings import driver as cu

KERNELS = Path(__file__).resolve().parents[2] / "tests" / "kernels"
sys.path.insert(0, str(KERNELS))
import cases as manifest  # noqa: E402
from all_cases import all_cases  # noqa: E402

PARAM_DTYPES = {"u8": np.uint8, "s8": np.int8, "b8": np.uint8, "u16": np.uint16, "s16": np.int16,
                "b16": np.uint16, "f16": np.float16, "u32": np.uint32, "s32": np.int32, "b32": np.uint32,
                "f32": np.float32, "u64": np.uint64, "s64": np.int64, "b64": np.uint64, "f64": np.float64}


def check(result):
    err, *rest = result if isinstance(result, tuple) else (result,)
    if err != cu.CUresult.CUDA_SUCCESS:
        _, name = cu.cuGetErrorName(err)
        raise RuntimeError(f"CUDA driver error {name.decode() if name else err}")
    return rest[0] if len(rest) == 1 else rest


def entry_params(ptx_text: str, entry: str) -> list[tuple[str, int]]:
    """(PTX type, size in bytes) of each parameter of `.entry entry`."""
    m = re.search(r"\.entry\s+" + re.escape(entry) + r"\s*\((.*?)\)", ptx_text, re.S)
    if not m:
        raise ValueError(f"no .entry {entry}")
    params = []
    for decl in filter(None, (d.strip() for d in m.group(1).split(","))):
        t = re.search(r"\.(u8|s8|b8|u16|s16|b16|f16|u32|s32|b32|f32|u64|s64|b64|f64)\b", decl).group(1)
        count = re.search(r"\[(\d+)\]", decl)
        size = np.dtype(PARAM_DTYPES[t]).itemsize * (int(count.group(1)) if count else 1)
        params.append((t if not count else "array", size))
    return params


def encode_tensor_map(arg, device_ptr: int) -> bytes:
    dtype = getattr(cu.CUtensorMapDataType, "CU_TENSOR_MAP_DATA_TYPE_" + arg.dtype.upper())
    interleave = getattr(cu.CUtensorMapInterleave, "CU_TENSOR_MAP_INTERLEAVE_" + arg.interleave.upper())
    swizzle = getattr(cu.CUtensorMapSwizzle, "CU_TENSOR_MAP_SWIZZLE_" + arg.swizzle.upper())
    l2 = getattr(cu.CUtensorMapL2promotion, "CU_TENSOR_MAP_L2_PROMOTION_" +
                 ("NONE" if arg.l2_promotion == "none" else "L2_" + arg.l2_promotion.upper()))
    oob = (cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE if arg.oob_fill == "zero"
           else cu.CUtensorMapFloatOOBfill.CU_TENSOR_MAP_FLOAT_OOB_FILL_NAN_REQUEST_ZERO_FMA)
    dims = [cu.cuuint64_t(d) for d in arg.dims]
    # rank 1 has no strides, but the driver refuses a null globalStrides (CUDA_ERROR_INVALID_VALUE
    # on an H200, driver 580.159): pass one unused stride, as a C++ host passes a pointer
    strides = [cu.cuuint64_t(s) for s in arg.strides] or [cu.cuuint64_t(-(-arg.dims[0] * arg.itemsize // 16) * 16)]
    estrides = [cu.cuuint32_t(e) for e in (arg.element_strides or (1,) * arg.rank)]
    if arg.mode == "tiled":
        box = [cu.cuuint32_t(b) for b in arg.box]
        tmap = check(cu.cuTensorMapEncodeTiled(dtype, arg.rank, device_ptr, dims, strides, box, estrides,
                                               interleave, swizzle, l2, oob))
    else:
        tmap = check(cu.cuTensorMapEncodeIm2col(dtype, arg.rank, device_ptr, dims, strides,
                                                list(arg.pixel_box_lower), list(arg.pixel_box_upper),
                                                arg.channels_per_pixel, arg.pixels_per_column, estrides,
                                                interleave, swizzle, l2, oob))
    return ctypes.string_at(tmap.getPtr(), 128)


def run_case(case, ptx_rel: str) -> dict:
    record = {"case": case.name, "ptx": ptx_rel, "outputs": []}
    ptx_text = (KERNELS / ptx_rel).read_text()
    module = check(cu.cuModuleLoadData(ptx_text.encode() + b"\0"))
    allocations = []
    try:
        function = check(cu.cuModuleGetFunction(module, case.entry.encode()))
        params = entry_params(ptx_text, case.entry)
        args = case.make_args()
        expected = case.reference(args)
        device = {}
        for i, a in enumerate(args):
            if isinstance(a, np.ndarray):
                a = np.ascontiguousarray(a)
                ptr = check(cu.cuMemAlloc(max(a.nbytes, 1)))
                allocations.append(ptr)
                check(cu.cuMemcpyHtoD(ptr, a.ctypes.data, a.nbytes))
                device[i] = int(ptr)
        buffers = []
        for i, (a, (ptype, size)) in enumerate(zip(args, params, strict=True)):
            if isinstance(a, np.ndarray):
                raw = np.uint64(device[i]).tobytes()
            elif isinstance(a, manifest.TensorMapArg):
                raw = encode_tensor_map(a, device[a.array_index])
                if a.by_pointer:
                    ptr = check(cu.cuMemAlloc(128))
                    allocations.append(ptr)
                    host = np.frombuffer(raw, np.uint8).copy()
                    check(cu.cuMemcpyHtoD(ptr, host.ctypes.data, 128))
                    raw = np.uint64(int(ptr)).tobytes()
            elif isinstance(a, np.void):
                raw = a.tobytes()
            else:
                raw = np.asarray(a).astype(PARAM_DTYPES[ptype]).tobytes()
            if len(raw) != size:
                raise ValueError(f"argument {i}: {len(raw)} bytes for a {size}-byte parameter")
            buffers.append(ctypes.create_string_buffer(raw, size))
        pointers = (ctypes.c_void_p * len(buffers))(*[ctypes.addressof(b) for b in buffers])

        config = cu.CUlaunchConfig()
        config.gridDimX, config.gridDimY, config.gridDimZ = case.grid
        config.blockDimX, config.blockDimY, config.blockDimZ = case.block
        config.sharedMemBytes = case.shared_mem
        config.hStream = 0
        if case.shared_mem > 48 * 1024:
            check(cu.cuFuncSetAttribute(
                function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                case.shared_mem))
        attrs = []
        if case.cluster is not None:
            attr = cu.CUlaunchAttribute()
            attr.id = cu.CUlaunchAttributeID.CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION
            attr.value.clusterDim.x, attr.value.clusterDim.y, attr.value.clusterDim.z = case.cluster
            attrs.append(attr)
            if int(np.prod(case.cluster)) > 8:
                check(cu.cuFuncSetAttribute(
                    function, cu.CUfunction_attribute.CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1))
        config.attrs = attrs
        config.numAttrs = len(attrs)
        check(cu.cuLaunchKernelEx(config, function, ctypes.addressof(pointers), 0))
        check(cu.cuCtxSynchronize())

        problems = []
        for index, want, mode in zip(case.outputs, expected, case.compare):
            got = np.empty_like(np.ascontiguousarray(args[index]))
            check(cu.cuMemcpyDtoH(got.ctypes.data, device[index], got.nbytes))
            record["outputs"].append({"index": index, "sha256": hashlib.sha256(got.tobytes()).hexdigest(),
                                      "dtype": str(got.dtype), "size": int(got.size)})
            if mode["mode"] != "exact":
                record["outputs"][-1]["data"] = base64.b64encode(zlib.compress(got.tobytes(), 9)).decode()
            try:
                manifest.assert_matches(mode, got, want)
            except AssertionError as e:
                problems.append(f"output {index}: {e}")
        record["status"] = "differs" if problems else "match"
        record["message"] = "; ".join(problems)
    finally:
        for ptr in allocations:
            cu.cuMemFree(ptr)
        cu.cuModuleUnload(module)
    return record


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("out", type=Path)
    ap.add_argument("--match", default="")
    opts = ap.parse_args()
    check(cu.cuInit(0))
    dev = check(cu.cuDeviceGet(0))
    name = check(cu.cuDeviceGetName(64, dev)).split(b"\0")[0].decode()
    ctx = check(cu.cuDevicePrimaryCtxRetain(dev))
    check(cu.cuCtxSetCurrent(ctx))
    major = check(cu.cuDeviceGetAttribute(cu.CUdevice_attribute.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev))
    opts.out.mkdir(parents=True, exist_ok=True)
    log = opts.out / "results.jsonl"
    done = {(r["case"], r["ptx"]) for r in map(json.loads, log.read_text().splitlines())} if log.exists() else set()
    for case in all_cases():
        for ptx_rel in case.ptx:
            if opts.match not in f"{case.name} {ptx_rel}" or (case.name, ptx_rel) in done:
                continue
            arch = int(re.search(r"sm_(\d+)", ptx_rel).group(1))
            if arch // 10 > major:
                continue
            sticky = False
            try:
                record = run_case(case, ptx_rel)
            except Exception as e:          # record and go on: one bad case must not hide the rest
                record = {"case": case.name, "ptx": ptx_rel, "status": "error",
                          "message": f"{type(e).__name__}: {e}", "trace": traceback.format_exc(limit=3)}
                sticky = any(w in str(e) for w in ("ILLEGAL", "LAUNCH_FAILED", "MISALIGNED", "HARDWARE"))
            with log.open("a") as f:
                f.write(json.dumps(record | {"device": name}) + "\n")
            print(record["status"], case.name, ptx_rel, record.get("message", "")[:300], flush=True)
            if sticky:                      # the context is gone: start afresh past this case
                os.execv(sys.executable, [sys.executable] + sys.argv)
    results = [json.loads(line) for line in log.read_text().splitlines()]
    counts = {s: sum(r["status"] == s for r in results) for s in ("match", "differs", "error")}
    print(name, counts)
    return 0


if __name__ == "__main__":
    sys.exit(main())

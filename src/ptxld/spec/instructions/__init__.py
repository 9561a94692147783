"""The table of instruction records: which spec module defines each instruction.

Records are loaded on first use: a module that has no `wmma` never pays for the wmma tables.
Adding an instruction family is a module here with a `RECORDS` tuple, and its names listed in
`_HOME`. `common.py` holds the value sets many records share.
"""
from __future__ import annotations

import importlib
from functools import lru_cache

from ..isa import InstructionSpec

# instruction name -> module (under ptxld.spec) that defines its record
_HOME: dict[str, str] = {
    "ld": "ld",
    "wmma.load": "wmma", "wmma.store": "wmma", "wmma.mma": "wmma",
    "add": "instructions.arith", "sub": "instructions.arith",
    "mov": "instructions.moves",
    "vote": "instructions.warp",
    "prefetch": "instructions.cache", "prefetchu": "instructions.cache",
    "applypriority": "instructions.cache", "discard": "instructions.cache",
    "createpolicy": "instructions.cache",
    # asynchronous copies, mbarrier and clusters (sm_80 / sm_90)
    **{n: "instructions.async_copy" for n in (
        "cp.async", "cp.async.commit_group", "cp.async.wait_group", "cp.async.wait_all",
        "cp.async.bulk", "cp.reduce.async.bulk", "cp.async.bulk.prefetch", "cp.async.bulk.tensor",
        "cp.reduce.async.bulk.tensor", "cp.async.bulk.prefetch.tensor", "cp.async.bulk.commit_group",
        "cp.async.bulk.wait_group", "tensormap.replace", "tensormap.cp_fenceproxy")},
    **{n: "instructions.mbarrier" for n in (
        "mbarrier.init", "mbarrier.inval", "mbarrier.expect_tx", "mbarrier.complete_tx",
        "mbarrier.arrive", "mbarrier.arrive_drop", "cp.async.mbarrier.arrive", "mbarrier.test_wait",
        "mbarrier.try_wait", "mbarrier.pending_count")},
    **{n: "instructions.cluster" for n in (
        "barrier.cluster", "elect.sync", "griddepcontrol", "setmaxnreg", "mapa", "getctarank",
        "fence.proxy.async", "fence.mbarrier_init")},
    "ldmatrix": "instructions.matrix", "stmatrix": "instructions.matrix",
    "movmatrix": "instructions.matrix", "mma": "instructions.matrix", "mma.sp": "instructions.matrix",
    "mma.sp::ordered_metadata": "instructions.matrix",
    "wgmma.fence": "instructions.wgmma", "wgmma.commit_group": "instructions.wgmma",
    "wgmma.wait_group": "instructions.wgmma", "wgmma.mma_async": "instructions.wgmma",
    "wgmma.mma_async.sp": "instructions.wgmma",
    "bmsk": "instructions.bits", "szext": "instructions.bits", "fns": "instructions.bits",
    "alloca": "instructions.stack", "stacksave": "instructions.stack",
    "stackrestore": "instructions.stack",
    "addc": "instructions.carry", "subc": "instructions.carry", "madc": "instructions.carry",
    **{name: "instructions.video" for name in (
        "vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr", "vmad", "vset",
        "vadd2", "vsub2", "vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2",
        "vadd4", "vsub4", "vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4")},
    # floating point other than add/sub/mul/mad/div/abs/neg/min/max
    **dict.fromkeys(("testp", "copysign", "fma", "rcp", "sqrt", "rsqrt", "sin", "cos", "lg2", "ex2",
                     "tanh"), "instructions.floats"),
    **dict.fromkeys(("set", "setp", "selp", "slct"), "instructions.compare"),
    **dict.fromkeys(("and", "or", "xor", "not", "cnot", "lop3", "shf", "shl", "shr"), "instructions.logic"),
    **dict.fromkeys(("cvt", "cvt.pack", "cvta", "isspacep", "prmt"), "instructions.convert"),
    **dict.fromkeys(("st", "atom", "red"), "instructions.memory"),
    **dict.fromkeys(("bar", "barrier", "bar.warp.sync", "membar", "fence", "shfl", "match", "redux",
                     "activemask", "nanosleep", "trap", "brkpt", "pmevent"), "instructions.sync"),
    **dict.fromkeys(("bra", "brx.idx", "call", "ret", "exit"), "instructions.control"),
    **dict.fromkeys(("mul24", "mad24", "sad", "rem", "popc", "clz", "bfind", "brev", "bfe", "bfi", "dp4a",
                     "dp2a"), "instructions.integer"),
    **dict.fromkeys(("mul", "mad", "div", "abs", "neg", "min", "max"), "instructions.mixed"),
    **dict.fromkeys(("ldu", "st.async", "red.async", "st.bulk"), "instructions.async_store"),
    **dict.fromkeys(("multimem.ld_reduce", "multimem.st", "multimem.red"), "instructions.multimem"),
    **dict.fromkeys(("tcgen05.alloc", "tcgen05.dealloc", "tcgen05.relinquish_alloc_permit", "tcgen05.ld",
                     "tcgen05.st", "tcgen05.wait::ld", "tcgen05.wait::st", "tcgen05.cp", "tcgen05.shift",
                     "tcgen05.mma", "tcgen05.mma.sp", "tcgen05.commit", "tcgen05.fence::before_thread_sync",
                     "tcgen05.fence::after_thread_sync"), "instructions.tensor_memory"),
    **dict.fromkeys(("clusterlaunchcontrol.try_cancel", "clusterlaunchcontrol.query_cancel"),
                    "instructions.launch_control"),
    **dict.fromkeys(("tex", "tld4", "txq", "istypep"), "instructions.texture"),
    **dict.fromkeys(("suld", "sust", "sured", "suq"), "instructions.surface"),
}

_LOADED: dict[str, InstructionSpec] = {}


def names() -> frozenset[str]:
    """Every instruction name that has a record."""
    return frozenset(_HOME)


@lru_cache(maxsize=256)
def suffixed(name: str) -> tuple[str, ...]:
    """The records named `name` with a `::` suffix, which is always written (`tcgen05.wait` ->
    `tcgen05.wait::ld`, `tcgen05.wait::st`); empty for most names."""
    return tuple(sorted(n for n in _HOME if n.startswith(name + "::")))


def has_record(name: str) -> bool:
    """Whether an instruction name has a record (without loading the module that defines it)."""
    return name in _HOME


def home_module(name: str) -> str | None:
    """The module that defines an instruction's record (`ptxld.spec.instructions.floats`)."""
    home = _HOME.get(name)
    return f"ptxld.spec.{home}" if home else None


def spec_of(name: str) -> InstructionSpec | None:
    """The record of an instruction name (`"wmma.load"`), or None if it has none."""
    got = _LOADED.get(name)
    if got is None:
        home = _HOME.get(name)
        if home is None:
            return None
        module = importlib.import_module(f"ptxld.spec.{home}")
        for record in module.RECORDS:
            _LOADED[record.name] = record
        got = _LOADED[name]
    return got

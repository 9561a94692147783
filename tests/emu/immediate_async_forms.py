"""The asynchronous and warp-coordination instructions in the immediate property test: each runs
with an immediate in one operand position and with the same value in a register, under a random
active mask, and both must match a NumPy reference of what the PTX ISA says is observable (the
bytes a copy leaves in global or shared memory, the mbarrier state read back through
pending_count and test_wait, the elected lane, the tensor-map fields).

The harness kernel gives thread t: its 8 source slots `in[t]` (`%pin`), a 128-byte global area
`out[t, 0:16]` (`%pout`) that copies write and observations are stored to, a 128-byte shared
area (`%sh`) preloaded from `blob[t]` and dumped into `out[t, 16:32]` at the end, and its own
mbarrier (`%bar`). Each form is a list of lines (a line under the guard starts with `@%m`);
`{sK}` is source K at the position under test, `%sK` its register wherever else it is used.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from ptxld.emu import tensormap as tensor_maps

N = 32
OUT_SLOTS = 32          # u64 slots per thread: 16 global area, 16 shared dump
SENTINEL = 0xA5


@dataclass(frozen=True)
class AsyncForm:
    opcode: str                     # the instruction under test, as written (its name covers it)
    src: tuple                      # source types (".b32", ".b64", ".u32", "mask")
    immediate: tuple                # the source positions an immediate may take
    draw: tuple                     # per source: (rng, n) -> n values in its valid range
    lines: tuple                    # the body
    reference: Callable             # (values, mask, blob, out0) -> the expected out
    blob: Callable | None = None    # (rng) -> (N, 16) u64 shared preload; random bytes if None
    target: str = "sm_90a"


def _uniform(lo, hi):
    return lambda rng, n: rng.integers(lo, hi + 1, size=n, dtype=np.uint64)


def _mult16(rng, n):
    return rng.integers(1, 5, size=n, dtype=np.uint64) * np.uint64(16)


MASK = "mask"       # the member mask: the ballot of the guard (filled in by the test)


def _bytes(rows: np.ndarray) -> np.ndarray:
    return np.ascontiguousarray(rows).view(np.uint8).reshape(len(rows), -1)


def _store_obs(*regs):
    """Store 32-bit observation registers (or predicates as 0/1) into slots 0, 1, ..."""
    out = []
    for j, r in enumerate(regs):
        if r.startswith("%p"):
            out += [f"@%m selp.u32 %r7, 1, 0, {r};", f"@%m st.global.u32 [%pout+{8 * j}], %r7;"]
        else:
            out.append(f"@%m st.global.u32 [%pout+{8 * j}], {r};")
    return out


def _with_obs(out0, mask, columns):
    """out0 with the low 32 bits of slots 0.. of the active threads set to `columns`."""
    exp = out0.copy()
    act = mask.astype(bool)
    for j, col in enumerate(columns):
        v = np.broadcast_to(np.asarray(col, np.uint64), (len(exp),))
        exp[act, j] = (exp[act, j] & np.uint64(0xFFFFFFFF00000000)) | (v[act] & np.uint64(0xFFFFFFFF))
    return exp


def _shared_dump(exp, blob):
    exp[:, 16:32] = blob
    return exp


# --------------------------------------------------------------------------- copies

def _ref_cp_async(values, mask, blob, out0):
    """cp.async 16 bytes with src-size s: the first s bytes from the source, zeros up to 16."""
    exp = _shared_dump(out0.copy(), blob)
    sh = _bytes(exp[:, 16:18]).copy()
    src = _bytes(values[:, 0:2])
    for t in np.flatnonzero(mask):
        s = int(values[t, 0])
        sh[t] = 0
        sh[t, :s] = src[t, :s]
    exp[:, 16:18] = sh.view(np.uint64).reshape(len(exp), 2)
    return exp


def _ref_bulk_copy(values, mask, blob, out0):
    exp = _shared_dump(out0.copy(), blob)
    for t in np.flatnonzero(mask):
        k = int(values[t, 0]) // 8
        exp[t, :k] = blob[t, :k]
    return exp


def _ref_bulk_add(values, mask, blob, out0):
    exp = _shared_dump(out0.copy(), blob)
    for t in np.flatnonzero(mask):
        k = int(values[t, 0]) // 4
        g = exp[t, :16].view(np.uint32)
        g[:k] = g[:k] + blob[t].view(np.uint32)[:k]          # wraps modulo 2^32, as .add.u32
    return exp


_BULK_TAIL = ("cp.async.bulk.commit_group;", "cp.async.bulk.wait_group 0;")

FORMS = [
    AsyncForm("cp.async.ca.shared.global", (".u32",), (0,), (_uniform(0, 16),),
              ("@%m cp.async.ca.shared.global [%sh], [%pin], 16, {s0};", "cp.async.wait_all;"),
              _ref_cp_async),
    AsyncForm("cp.async.bulk.global.shared::cta.bulk_group", (".u32",), (0,), (_mult16,),
              ("@%m cp.async.bulk.global.shared::cta.bulk_group [%pout], [%sh], {s0};",) + _BULK_TAIL,
              _ref_bulk_copy),
    AsyncForm("cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32", (".u32",), (0,), (_mult16,),
              ("@%m cp.reduce.async.bulk.global.shared::cta.bulk_group.add.u32 [%pout], [%sh], {s0};",)
              + _BULK_TAIL, _ref_bulk_add),
]


# --------------------------------------------------------------------------- mbarrier
# Each thread its own barrier. What the PTX ISA makes observable: the pending arrival count of
# the state an arrive returns (the count before that arrive), that a phase completes when its
# pending arrivals and its transaction count both reach zero, and then reloads the expected
# count; test_wait.parity P is true once the phase of parity P has completed.

def _ref_init(values, mask, blob, out0):
    c = values[:, 0]
    return _shared_dump(_with_obs(out0, mask, [c, c, 1]), blob)


def _ref_arrive(values, mask, blob, out0):
    k, d = values[:, 0], values[:, 1]
    return _shared_dump(_with_obs(out0, mask, [k + d, d]), blob)


def _ref_tx(values, mask, blob, out0):
    return _shared_dump(_with_obs(out0, mask, [1, 1, 1]), blob)


_ARRIVE = "@%m mbarrier.arrive.shared.b64 %tok, [%bar];"
_PENDING = "@%m mbarrier.pending_count.b64 {}, %tok;"


def _tx_lines(expect: str, complete: str):
    # a phase with one arrival and `expect` bytes; `complete` bytes complete it after the arrive
    return ("@%m mbarrier.init.shared.b64 [%bar], 1;",
            f"@%m mbarrier.expect_tx.relaxed.cta.shared::cta.b64 [%bar], {expect};",
            _ARRIVE, _PENDING.format("%r0"),
            f"@%m mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%bar], {complete};",
            _ARRIVE, _PENDING.format("%r1"),
            "@%m mbarrier.test_wait.parity.shared.b64 %p0, [%bar], 1;") + tuple(_store_obs("%r0", "%r1", "%p0"))


def _ref_arrive_expect_tx(values, mask, blob, out0):
    # the arrive leaves the bytes pending; complete_tx ends phase 0, the next arrive phase 1
    return _shared_dump(_with_obs(out0, mask, [1, 1, 1]), blob)


def _ref_arrive_drop(values, mask, blob, out0):
    k, d = values[:, 0], values[:, 1]
    # the drop leaves the expected count k + d - k = d: after d more arrivals the phase completes
    # and pending reloads d
    return _shared_dump(_with_obs(out0, mask, [k + d, d, d]), blob)


def _ref_wait_parity(values, mask, blob, out0):
    # phase 0 completed, phase 1 current: parity 0 names a completed phase, parity 1 does not
    return _shared_dump(_with_obs(out0, mask, [values[:, 0] == 0]), blob)


_DONE_PHASE_0 = ("@%m mbarrier.init.shared.b64 [%bar], 1;", _ARRIVE)

FORMS += [
    AsyncForm("mbarrier.arrive.expect_tx.shared.b64", (".u32",), (0,), (_uniform(1, (1 << 20) - 1),),
              ("@%m mbarrier.init.shared.b64 [%bar], 1;",
               "@%m mbarrier.arrive.expect_tx.shared.b64 %tok, [%bar], {s0};", _PENDING.format("%r0"),
               "@%m mbarrier.complete_tx.relaxed.cta.shared::cta.b64 [%bar], %s0;",
               _ARRIVE, _PENDING.format("%r1"), "@%m mbarrier.test_wait.parity.shared.b64 %p0, [%bar], 1;")
              + tuple(_store_obs("%r0", "%r1", "%p0")), _ref_arrive_expect_tx),
    AsyncForm("mbarrier.arrive_drop.shared.b64", (".u32", ".u32"), (0,),
              (_uniform(1, 1 << 19), _uniform(1, 40)),
              ("@%m add.u32 %r1, %s0, %s1;", "@%m mbarrier.init.shared.b64 [%bar], %r1;",
               "@%m mbarrier.arrive_drop.shared.b64 %tok, [%bar], {s0};", _PENDING.format("%r0"),
               "@%m mbarrier.arrive.shared.b64 %tok, [%bar], %s1;",
               _ARRIVE, _PENDING.format("%r1"), "@%m mbarrier.pending_count.b64 %r2, %tok;")
              + tuple(_store_obs("%r0", "%r1", "%r2")), _ref_arrive_drop),
    AsyncForm("mbarrier.test_wait.parity.shared.b64", (".u32",), (0,), (_uniform(0, 1),),
              _DONE_PHASE_0 + ("@%m mbarrier.test_wait.parity.shared.b64 %p0, [%bar], {s0};",)
              + tuple(_store_obs("%p0")), _ref_wait_parity),
    AsyncForm("mbarrier.try_wait.parity.shared.b64", (".u32", ".u32"), (0, 1), (_uniform(0, 1), _uniform(0, 1000)),
              _DONE_PHASE_0 + ("@%m mbarrier.try_wait.parity.shared.b64 %p0, [%bar], {s0}, {s1};",)
              + tuple(_store_obs("%p0")), _ref_wait_parity),
]

FORMS += [
    AsyncForm("mbarrier.init.shared.b64", (".u32",), (0,), (_uniform(2, (1 << 20) - 1),),
              ("@%m mbarrier.init.shared.b64 [%bar], {s0};", _ARRIVE, _PENDING.format("%r0"),
               "@%m sub.u32 %r1, %s0, 1;", "@%m mbarrier.arrive.shared.b64 %tok, [%bar], %r1;",
               _ARRIVE, _PENDING.format("%r1"), "@%m mbarrier.test_wait.parity.shared.b64 %p0, [%bar], 0;")
              + tuple(_store_obs("%r0", "%r1", "%p0")), _ref_init),
    AsyncForm("mbarrier.arrive.shared.b64", (".u32", ".u32"), (0,),
              (_uniform(1, 1 << 19), _uniform(1, 40)),
              ("@%m add.u32 %r1, %s0, %s1;", "@%m mbarrier.init.shared.b64 [%bar], %r1;",
               "@%m mbarrier.arrive.shared.b64 %tok, [%bar], {s0};", _PENDING.format("%r0"),
               _ARRIVE, _PENDING.format("%r1")) + tuple(_store_obs("%r0", "%r1")), _ref_arrive),
    AsyncForm("mbarrier.expect_tx.relaxed.cta.shared::cta.b64", (".u32",), (0,),
              (_uniform(1, (1 << 20) - 1),), _tx_lines("{s0}", "%s0"), _ref_tx),
    AsyncForm("mbarrier.complete_tx.relaxed.cta.shared::cta.b64", (".u32",), (0,),
              (_uniform(1, (1 << 20) - 1),), _tx_lines("%s0", "{s0}"), _ref_tx),
]


# --------------------------------------------------------------------------- elect.sync

def _ref_elect(values, mask, blob, out0):
    act = np.flatnonzero(mask)
    leader = int(act[0]) if len(act) else 0
    lanes = np.arange(len(mask))
    return _shared_dump(_with_obs(out0, mask, [leader, lanes == leader]), blob)


FORMS.append(AsyncForm("elect.sync", (MASK,), (0,), (_uniform(0, 0),),
                       ("@%m elect.sync %r0|%p0, {s0};",) + tuple(_store_obs("%r0", "%p0")), _ref_elect))


# --------------------------------------------------------------------------- tensormap.replace

def _map_blob(rng):
    """Every thread's shared area: the same rank-3 tiled tensor map (cuTensorMapEncodeTiled)."""
    a = np.zeros((6, 10, 16), np.float32)
    raw = bytes(tensor_maps.TensorMap.tiled(a, box=(8, 4, 2)))
    return np.tile(np.frombuffer(raw, np.uint64), (N, 1))


def _ref_replace(field: str, ordinal: int | None):
    def ref(values, mask, blob, out0):
        exp = _shared_dump(out0.copy(), blob)
        for t in np.flatnonzero(mask):
            f = tensor_maps.decode(blob[t].tobytes())
            v = int(values[t, 0])
            if ordinal is None:
                f[field] = v
                f["flags"] &= ~tensor_maps.HOST_POINTER       # a device address from now on
            else:
                f[field] = f[field][:ordinal] + (v,) + f[field][ordinal + 1:]
            exp[t, 16:32] = np.frombuffer(tensor_maps.encode(f), np.uint64)
        return exp
    return ref


FORMS += [
    AsyncForm("tensormap.replace.tile.global_address.shared::cta.b1024.b64", (".b64",), (0,),
              (lambda rng, n: rng.integers(0, 1 << 48, size=n, dtype=np.uint64) << np.uint64(4),),
              ("@%m tensormap.replace.tile.global_address.shared::cta.b1024.b64 [%sh], {s0};",),
              _ref_replace("address", None), _map_blob),
    AsyncForm("tensormap.replace.tile.global_dim.shared::cta.b1024.b32", (".b32",), (0,),
              (_uniform(1, 1 << 31),),
              ("@%m tensormap.replace.tile.global_dim.shared::cta.b1024.b32 [%sh], 1, {s0};",),
              _ref_replace("dims", 1), _map_blob),
    AsyncForm("tensormap.replace.tile.global_stride.shared::cta.b1024.b64", (".b64",), (0,),
              (lambda rng, n: rng.integers(1, 1 << 36, size=n, dtype=np.uint64) << np.uint64(4),),
              ("@%m tensormap.replace.tile.global_stride.shared::cta.b1024.b64 [%sh], 1, {s0};",),
              _ref_replace("strides", 1), _map_blob),
    AsyncForm("tensormap.replace.tile.box_dim.shared::cta.b1024.b32", (".b32",), (0,), (_uniform(1, 256),),
              ("@%m tensormap.replace.tile.box_dim.shared::cta.b1024.b32 [%sh], 2, {s0};",),
              _ref_replace("box", 2), _map_blob),
    AsyncForm("tensormap.replace.tile.element_stride.shared::cta.b1024.b32", (".b32",), (0,), (_uniform(1, 8),),
              ("@%m tensormap.replace.tile.element_stride.shared::cta.b1024.b32 [%sh], 0, {s0};",),
              _ref_replace("estrides", 0), _map_blob),
]


# --------------------------------------------------------------------------- st.async, red.async,
# st.bulk: the bytes stored and, for the asynchronous ones, the phase their complete-tx finishes

def _ref_async_store(op: str):
    def ref(values, mask, blob, out0):
        exp = _shared_dump(_with_obs(out0, mask, [1]), blob)
        for t in np.flatnonzero(mask):
            sh = exp[t, 16:32].view(np.uint32)
            if op == "st.v2":
                sh[0:2] = values[t, 0:2].astype(np.uint32)
            elif op == "st.b64":
                exp[t, 16] = values[t, 0]
            else:                                            # red .add.u32
                sh[0] = (int(sh[0]) + int(values[t, 0])) & 0xFFFFFFFF
        return exp
    return ref


def _ref_bulk_store(values, mask, blob, out0):
    exp = _shared_dump(out0.copy(), blob)
    for t in np.flatnonzero(mask):
        exp[t, 16:16 + int(values[t, 0]) // 8] = 0
    return exp


def _async_store(expect: int, line: str):
    return ("@%m mbarrier.init.shared.b64 [%bar], 1;",
            f"@%m mbarrier.arrive.expect_tx.shared.b64 %tok, [%bar], {expect};", "@%m " + line,
            "@%m mbarrier.test_wait.parity.shared.b64 %p0, [%bar], 0;") + tuple(_store_obs("%p0"))


_ST_ASYNC = "st.async.shared::cluster.mbarrier::complete_tx::bytes"
_RED_ASYNC = "red.async.relaxed.cluster.shared::cluster.mbarrier::complete_tx::bytes.add.u32"
_ANY32 = _uniform(0, (1 << 32) - 1)
FORMS += [
    AsyncForm(_ST_ASYNC + ".v2.b32", (".b32", ".b32"), (0, 1), (_ANY32, _ANY32),
              _async_store(8, _ST_ASYNC + ".v2.b32 [%sh], {{{s0}, {s1}}}, [%bar];"), _ref_async_store("st.v2")),
    AsyncForm(_ST_ASYNC + ".b64", (".b64",), (0,), (_uniform(0, (1 << 64) - 1),),
              _async_store(8, _ST_ASYNC + ".b64 [%sh], {s0}, [%bar];"), _ref_async_store("st.b64")),
    AsyncForm(_RED_ASYNC, (".u32",), (0,), (_ANY32,),
              _async_store(4, _RED_ASYNC + " [%sh], {s0}, [%bar];"), _ref_async_store("red")),
    AsyncForm("st.bulk.weak.shared::cta", (".b64",), (0,),
              (lambda rng, n: rng.integers(0, 17, size=n, dtype=np.uint64) * np.uint64(8),),
              ("@%m st.bulk.weak.shared::cta [%sh], {s0}, 0;",), _ref_bulk_store, target="sm_100a"),
]


# --------------------------------------------------------------------------- the kernel

def _reg_type(t: str) -> str:
    return ".b64" if "64" in t else ".b32"


def _literal(t: str, bits: int) -> str:
    return "0x%X" % (bits & ((1 << (64 if "64" in t else 32)) - 1))


def line_text(form: AsyncForm, imms: dict) -> list[str]:
    fill = {f"s{k}": _literal(t, imms[k]) if k in imms else f"%s{k}" for k, t in enumerate(form.src)}
    return [ln.format(**fill) for ln in form.lines]


def kernel_text(form: AsyncForm, imms: dict, name: str = "k", header: bool = True) -> str:
    body = ["mov.u32 %t, %tid.x;", "cvt.u64.u32 %tm, %t;",
            "ld.param.u64 %pin, [pin];", "ld.param.u64 %pout, [pout];", "ld.param.u64 %pm, [pmsk];",
            "ld.param.u64 %pblob, [pblob];", "cvta.to.global.u64 %pin, %pin;",
            "cvta.to.global.u64 %pout, %pout;", "cvta.to.global.u64 %pm, %pm;",
            "cvta.to.global.u64 %pblob, %pblob;",
            "shl.b64 %ta, %tm, 6;", "add.s64 %pin, %pin, %ta;",
            "shl.b64 %ta, %tm, 8;", "add.s64 %pout, %pout, %ta;",
            "shl.b64 %ta, %tm, 7;", "add.s64 %pblob, %pblob, %ta;",
            f"mov.u64 %sh, {name}_sm;", "add.s64 %sh, %sh, %ta;",
            "shl.b64 %ta, %tm, 3;", f"mov.u64 %bar, {name}_bar;", "add.s64 %bar, %bar, %ta;",
            "add.s64 %pm, %pm, %tm;", "ld.global.u8 %mk, [%pm];", "setp.ne.u16 %m, %mk, 0;"]
    for k, t in enumerate(form.src):
        body.append(f"ld.global{_reg_type(t)} %s{k}, [%pin+{8 * k}];")
    for j in range(16):
        body += [f"ld.global.b64 %x, [%pblob+{8 * j}];", f"st.shared.b64 [%sh+{8 * j}], %x;"]
    body.append("fence.proxy.async.shared::cta;")
    body += line_text(form, imms)
    body.append("fence.proxy.async.shared::cta;")
    for j in range(16):
        body += [f"ld.shared.b64 %x, [%sh+{8 * j}];", f"st.global.b64 [%pout+{128 + 8 * j}], %x;"]
    regs = [f".reg {_reg_type(t)} %s{k};" for k, t in enumerate(form.src)]
    decl = [".reg .b32 %t, %r<8>;", ".reg .b64 %ta, %tm, %pin, %pout, %pm, %pblob, %sh, %bar, %x, %tok;",
            ".reg .b16 %mk;", ".reg .pred %m, %p<2>;"] + regs
    head = [".version 8.6", f".target {form.target}", ".address_size 64"] if header else []
    shared = [f".shared .align 128 .b8 {name}_sm[{128 * N}];", f".shared .align 8 .b64 {name}_bar[{N}];"]
    return "\n".join(head + shared + [
        f".visible .entry {name}(.param .u64 pin, .param .u64 pout, .param .u64 pmsk, .param .u64 pblob) {{"]
        + decl + body + ["ret;", "}"]) + "\n"


def inputs(form: AsyncForm, seed: int):
    """(values, mask, blob, out0): sources in their valid ranges, a random guard, the shared
    preload and the global area's initial contents."""
    rng = np.random.default_rng(seed)
    values = rng.integers(0, 2**64, size=(N, 8), dtype=np.uint64)
    mask = (rng.random(N) < 0.6).astype(np.uint8)
    for k, t in enumerate(form.src):
        values[:, k] = form.draw[k](rng, N)
        if t == MASK:
            values[:, k] = sum(1 << i for i in range(N) if mask[i])
    blob = form.blob(rng) if form.blob else rng.integers(0, 2**64, size=(N, 16), dtype=np.uint64)
    out0 = rng.integers(0, 2**64, size=(N, OUT_SLOTS), dtype=np.uint64)
    return values, mask, blob, out0

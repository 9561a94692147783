"""Property tests: an emulated `ld` of every type, vector length, state space and address form
equals NumPy reading the same little-endian bytes, sign- or zero-extended into the destination
register per PTX Table 28; `st` mirrors it (the register's low bits land in memory)."""
from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptxld

BUF = 64
WIDTHS = {"8": 8, "16": 16, "32": 32, "64": 64, "128": 128}
INT_TYPES = [f".{k}{w}" for k in "bsu" for w in (8, 16, 32, 64)]
LD_TYPES = INT_TYPES + [".f32", ".f64", ".b128"]

# address forms per space: "reg", "reg+off", "var", "var+off", "imm"
FORMS = {
    ".global": ("reg", "reg+off", "var", "var+off"),
    ".shared": ("reg", "reg+off", "var", "var+off", "imm"),
    ".local": ("reg", "reg+off", "var", "var+off", "imm"),
    ".const": ("reg", "reg+off", "var", "var+off", "imm"),
    ".param": ("var", "var+off"),
    "generic-global": ("reg", "reg+off"),
    "generic-shared": ("reg", "reg+off"),
    "generic-local": ("reg", "reg+off"),
}


def width(t):
    return 128 if t == ".b128" else int(t[2:])


def dest_types(t):
    """Register types a `ld.t` may write (Table 28), excluding 8-bit registers."""
    w = width(t)
    if t == ".b128":
        return [".b128"]
    if t in (".f32", ".f64"):
        return [t, ".b%d" % w] + ([".b64"] if w == 32 else [])
    return [f".{k}{rw}" for k in "bsu" for rw in (16, 32, 64) if rw >= w] + (
        [".f32"] if t == ".b32" else [".f64"] if t == ".b64" else [])


@st.composite
def load_case(draw):
    space = draw(st.sampled_from(sorted(FORMS)))
    t = draw(st.sampled_from(LD_TYPES))
    w = width(t)
    vecs = [1]
    if w <= 32:
        vecs += [2, 4]
    elif w == 64:
        vecs += [2]
    if w == 32 and space in (".global", "generic-global"):
        vecs += [8]
    if w == 64 and space in (".global", "generic-global"):
        vecs += [4]
    vec = draw(st.sampled_from(vecs))
    access = w // 8 * vec
    if space == ".param":
        limit = 32
    else:
        limit = BUF
    off = draw(st.integers(0, limit // access - 1)) * access
    form = draw(st.sampled_from(FORMS[space]))
    if off and form in ("reg", "var"):
        form += "+off"
    rtype = draw(st.sampled_from(dest_types(t)))
    sinks = [False] * vec
    if vec * w == 256:
        sinks = draw(st.lists(st.booleans(), min_size=vec, max_size=vec))
        if all(sinks):
            sinks[0] = False
    data = draw(st.binary(min_size=BUF, max_size=BUF))
    return space, t, vec, off, form, rtype, sinks, data


HEADER = """.version 8.8
.target sm_100a
.address_size 64
.global .align 16 .b8 gbuf[64];
.const .align 16 .b8 cbuf[64] = {CINIT};
"""


def _copy_in(space_var, st_space):
    lines = []
    for k in range(0, BUF, 16):
        lines.append(f"ld.global.v4.u32 {{%c0,%c1,%c2,%c3}}, [%rd1+{k}];")
        lines.append(f"st{st_space}.v4.u32 [{space_var}+{k}], {{%c0,%c1,%c2,%c3}};")
    return "\n".join(lines)


def _copy_out(space_var, ld_space):
    lines = []
    for k in range(0, BUF, 16):
        lines.append(f"ld{ld_space}.v4.u32 {{%c0,%c1,%c2,%c3}}, [{space_var}+{k}];")
        lines.append(f"st.global.v4.u32 [%rd2+{BUF + k}], {{%c0,%c1,%c2,%c3}};")
    return "\n".join(lines)


def _address(space, form, off):
    """(setup lines, address operand, state-space qualifier) for a load/store."""
    var = {".global": "gbuf", ".shared": "sbuf", ".local": "lbuf", ".const": "cbuf", ".param": "pbuf"}
    if space.startswith("generic"):
        real = space.split("-")[1]
        v = {"global": "gbuf", "shared": "sbuf", "local": "lbuf"}[real]
        setup = f"mov.u64 %rd3, {v};\ncvta.{real}.u64 %rd3, %rd3;"
        return setup, ("[%rd3]" if form == "reg" else f"[%rd3+{off}]"), ""
    v = var[space]
    if form == "var":
        return "", f"[{v}]", space
    if form == "var+off":
        return "", f"[{v}+{off}]", space
    if form == "imm":
        return "", f"[{off}]", space
    setup = f"mov.u64 %rd3, {v};"
    return setup, ("[%rd3]" if form == "reg" else f"[%rd3+{off}]"), space


def build(space, body_lines, cinit):
    return HEADER.replace("CINIT", ", ".join(str(b) for b in cinit)) + f"""
.visible .entry k(.param .u64 src, .param .u64 out, .param .align 16 .b8 pbuf[32])
{{
.reg .b64 %rd<8>;
.reg .b32 %c<4>;
.reg .b16 %h<9>; .reg .s16 %sh<9>; .reg .u16 %uh<9>;
.reg .b32 %r<9>; .reg .s32 %sr<9>; .reg .u32 %ur<9>; .reg .f32 %f<9>;
.reg .b64 %d<9>; .reg .s64 %sd<9>; .reg .u64 %ud<9>; .reg .f64 %fd<9>;
.reg .b128 %q<9>;
.shared .align 16 .b8 sbuf[64];
.local .align 16 .b8 lbuf[64];
ld.param.u64 %rd1, [src];
ld.param.u64 %rd2, [out];
{_copy_in("gbuf", ".global")}
{_copy_in("sbuf", ".shared")}
{_copy_in("lbuf", ".local")}
{body_lines}
ret;
}}
"""


REG_PREFIX = {".b16": "%h", ".s16": "%sh", ".u16": "%uh", ".b32": "%r", ".s32": "%sr", ".u32": "%ur",
              ".f32": "%f", ".b64": "%d", ".s64": "%sd", ".u64": "%ud", ".f64": "%fd", ".b128": "%q"}


def expected_load(buf, t, vec, off, rtype, sinks):
    w = width(t)
    rw = width(rtype)
    out = []
    for k in range(vec):
        raw = bytes(buf[off + k * w // 8: off + (k + 1) * w // 8])
        v = int.from_bytes(raw, "little")
        if t[1] == "s" and v >> (w - 1):
            v -= 1 << w
        out.append(None if sinks[k] else v & ((1 << rw) - 1))
    return out


@settings(max_examples=250, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(load_case())
def test_ld_equals_numpy(case):
    space, t, vec, off, form, rtype, sinks, data = case
    buf = np.frombuffer(data, np.uint8)
    setup, addr, q = _address(space, form, off)
    prefix = REG_PREFIX[rtype]
    regs = ["_" if sinks[k] else f"{prefix}{k}" for k in range(vec)]
    dst = regs[0] if vec == 1 else "{" + ", ".join(regs) + "}"
    vq = "" if vec == 1 else f".v{vec}"
    rw = width(rtype)
    stores = []
    for k in range(vec):
        if not sinks[k]:
            stores.append(f"st.global.b{rw} [%rd2+{k * 16}], {prefix}{k};")
    body = f"{setup}\nld{q}{vq}{t} {dst}, {addr};\n" + "\n".join(stores)
    # the ISA semantics of every addressing form, ptxas-refused immediate addresses included
    mod = ptxld.RawModule(code=build(space, body, list(data)), check=False)
    out = np.zeros(16 * 8 + BUF, np.uint8)
    pbuf = bytes(data[:32])
    mod.get_function("k")(1, 1, [buf.copy(), out, pbuf])
    want = expected_load(buf, t, vec, off, rtype, sinks)
    for k, v in enumerate(want):
        if v is None:
            continue
        got = int.from_bytes(out[k * 16:k * 16 + rw // 8].tobytes(), "little")
        assert got == v, (k, hex(got), hex(v))


ST_SPACES = (".global", ".shared", ".local", "generic-global", "generic-shared", "generic-local")


@st.composite
def store_case(draw):
    space = draw(st.sampled_from(ST_SPACES))
    t = draw(st.sampled_from(LD_TYPES))
    w = width(t)
    vec = draw(st.sampled_from([1, 2, 4] if w <= 32 else [1, 2] if w == 64 else [1]))
    access = w // 8 * vec
    off = draw(st.integers(0, BUF // access - 1)) * access
    form = draw(st.sampled_from(FORMS[space]))
    if off and form in ("reg", "var"):
        form += "+off"
    rtype = draw(st.sampled_from(dest_types(t)))
    data = draw(st.binary(min_size=BUF, max_size=BUF))
    values = draw(st.lists(st.integers(0, 2**128 - 1), min_size=vec, max_size=vec))
    return space, t, vec, off, form, rtype, data, values


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(store_case())
def test_st_mirrors_ld(case):
    space, t, vec, off, form, rtype, data, values = case
    buf = np.frombuffer(data, np.uint8)
    setup, addr, q = _address(space, form, off)
    prefix = REG_PREFIX[rtype]
    rw = width(rtype)
    w = width(t)
    vals = np.zeros(16 * 8, np.uint8)
    loads = []
    for k, v in enumerate(values):
        v &= (1 << rw) - 1
        vals[k * 16:k * 16 + 16] = np.frombuffer(v.to_bytes(16, "little"), np.uint8)
        loads.append(f"ld.global.b{rw} {prefix}{k}, [%rd4+{k * 16}];")
    src = f"{prefix}0" if vec == 1 else "{" + ", ".join(f"{prefix}{k}" for k in range(vec)) + "}"
    vq = "" if vec == 1 else f".v{vec}"
    real = space.split("-")[-1].lstrip(".")
    var = {"global": "gbuf", "shared": "sbuf", "local": "lbuf"}[real]
    # the values to store follow the initial data in the source buffer
    body = (f"add.s64 %rd4, %rd1, {BUF};\n" + "\n".join(loads) + f"\n{setup}\n"
            f"st{q}{vq}{t} {addr}, {src};\n" + _copy_out(var, "." + real))
    mod = ptxld.RawModule(code=build(space, body, [0] * BUF))
    out = np.zeros(16 * 8 + BUF, np.uint8)
    mod.get_function("k")(1, 1, [np.concatenate([buf, vals]), out, b"\0" * 32])
    want = bytearray(data)
    for k, v in enumerate(values):
        v &= (1 << rw) - 1
        v &= (1 << w) - 1
        want[off + k * w // 8: off + (k + 1) * w // 8] = v.to_bytes(w // 8, "little")
    got = out[BUF:2 * BUF].tobytes()
    assert got == bytes(want)

"""Explain the warp-level matrix instructions (mma.sync, ldmatrix, stmatrix, movmatrix) and
wgmma.mma_async: what they compute, what they need, which lane holds which element (tables),
and SVG pictures of the fragments — all read from ``ptxld.spec.mma`` through the layout objects
of ``ptxld.wmma.matrix``."""
from __future__ import annotations

from html import escape

from ptxld.spec import mma as spec
from ptxld.spec.decode import decode
from ptxld.spec.instructions.matrix import B8_FORMS
from ptxld.wmma import matrix as matrix_layouts
from ptxld.wmma.errors import WmmaError
from ptxld.wmma.render import lane_colour

#: instruction names this module explains
EXPLAINED = frozenset({"mma", "mma.sp", "mma.sp::ordered_metadata", "ldmatrix", "stmatrix",
                       "movmatrix", "wgmma.mma_async", "wgmma.mma_async.sp"})


def _t(d, group: str) -> str | None:
    v = d.get(group)
    return v[1:] if v else None


def _span(values: list[int]) -> str:
    if len(values) > 1 and values == list(range(values[0], values[0] + len(values))):
        return f"{values[0]}-{values[-1]}"
    return ",".join(map(str, values))


def _cell(lay: matrix_layouts.MatrixLayout, thread: int, reg: int) -> str:
    rows = [int(r) for r in lay.rows[thread, reg]]
    cols = [int(c) for c in lay.cols[thread, reg]]
    if len(set(rows)) == 1:
        return f"({rows[0]},{_span(cols)})"
    if len(set(cols)) == 1:
        return f"({_span(rows)},{cols[0]})"
    return "".join(f"({r},{c})" for r, c in zip(rows, cols))


def fragment_table(lay: matrix_layouts.MatrixLayout, title: str, *, threads: range | None = None) -> str:
    """Lane × register table: each cell lists the (row, col) of the element(s) it holds, lowest
    slot first (for a quadpair fragment, within the lane's own product)."""
    threads = threads or range(lay.threads)
    cells = [[_cell(lay, t, r) for r in range(lay.nregs)] for t in threads]
    head = ["lane" if lay.threads == 32 else "thread"] + [f"r{r}" for r in range(lay.nregs)]
    widths = [max(len(head[0]), 6)] + [max(len(head[i + 1]), *(len(row[i]) for row in cells))
                                       for i in range(lay.nregs)]
    out = [title, "  ".join(h.rjust(w) for h, w in zip(head, widths)),
           "  ".join("-" * w for w in widths)]
    for t, row in zip(threads, cells):
        out.append("  ".join([str(t).rjust(widths[0])] + [c.ljust(w) for c, w in zip(row, widths[1:])]).rstrip())
    return "\n".join(out) + "\n"


def _per_register(frag: spec.Fragment) -> str:
    n = frag.per_register
    return (f"{n} × .{frag.type} per {frag.reg_bits}-bit register, element 0 in the lowest bits"
            if n > 1 else f"one .{frag.type} per {frag.reg_bits}-bit register")


# ---------------------------------------------------------------- instructions

def _mma(d, target: str) -> tuple[str, dict]:
    shape = _t(d, "shape")
    types = [_t(d, g) for g in ("atype", "btype", "ctype", "dtype")]
    al, bl = _t(d, "alayout") or "row", _t(d, "blayout") or "col"
    kind = spec.mma_kind(shape, *types) if shape else None
    if kind is None:
        raise WmmaError(f"`{d.opcode}`: mma.sync has no such form (shape .{shape}, "
                        f"types .{'.'.join(str(t) for t in types)})")
    lays = matrix_layouts.mma_layouts(shape, *types, al, bl)
    m, n, k = spec.shape_mnk(shape)
    atype, btype, ctype, dtype = types
    quad = lays["a"].group is not None
    lines = [d.opcode, "",
             f"D ({m}×{n} .{dtype}) = A ({m}×{k} .{atype}) · B ({k}×{n} .{btype}) + C ({m}×{n} "
             f".{ctype}), computed collectively by the 32 threads of a warp (.sync.aligned: every "
             "lane executes it, with the same qualifiers).",
             f"Requires sm_{kind.min_sm} or later and PTX ISA {kind.min_ptx[0]}.{kind.min_ptx[1]}."]
    if quad:
        lines.append("m8n8k4 .f16 is four independent products: quadpair q (lanes 4q..4q+3 and "
                     "4q+16..4q+19) multiplies its own A and B; tables give (row, col) within "
                     "the lane's own product.")
    if atype == "b1":
        bitop = _t(d, "bitop") or "xor"
        lines.append(f"b1: D = C + popc(A row .{bitop} B column) over the {k} bits.")
    if d.get("satfinite"):
        lines.append(".satfinite: the s32 result is clamped to [-2^31, 2^31-1] (else it wraps).")
    lines.append("Numerics (ptxld): products exact, summed exactly where the D type allows, C "
                 "added, one rounding (nearest even) to the D type; f64 uses .rn unless "
                 ".rz/.rm/.rp is written.")
    for name, what in (("a", f"A, .{al}"), ("b", f"B, .{bl}"), ("c", "C"), ("d", "D")):
        if name == "d" and ctype == dtype:
            continue
        lay = lays[name]
        label = "C and D" if name == "c" and ctype == dtype else what
        lines += ["", fragment_table(lay, f"{label}: {lay.nregs} register(s) per lane, "
                                          f"{_per_register(lay.frag)}; cells: (row, col)")]
    return "\n".join(lines), {m_: lays[m_] for m_ in ("a", "b", "d")}


_SPARSITY = {32: "1:2 sparse: one element of every pair kept, metadata nibble 0b0100 for the "
                   "first, 0b1110 for the second",
             16: "2:4 sparse", 8: "2:4 sparse", 4: "4:8 sparse in pairs: two of every four element pairs kept"}


def _mma_sp(d) -> tuple[str, dict]:
    shape = _t(d, "shape")
    types = [_t(d, g) for g in ("atype", "btype", "ctype", "dtype")]
    kind = spec.sparse_kind(shape, *types) if shape else None
    if kind is None:
        raise WmmaError(f"`{d.opcode}`: no such mma.sp form (f16/bf16 m16n8k16/k32, tf32 m16n8k8/k16, "
                        "s8/u8 m16n8k32/k64, s4/u4 m16n8k64/k128, e4m3/e5m2 m16n8k64)")
    atype, btype, ctype, dtype = types
    m, n, k = spec.shape_mnk(shape)
    kc = spec.shape_mnk(kind.compressed)[2]
    unit = kind.unit_bits(atype)
    per_group = 4 * unit // spec.ELEMENT_BITS[atype]
    comp = matrix_layouts.layout_of("compressed A", spec.operand_a(m, kc, atype))
    lines = [d.opcode, "",
             f"D ({m}×{n} .{dtype}) = A ({m}×{k} .{atype}, {_SPARSITY[spec.ELEMENT_BITS[atype]]}) · "
             f"B ({k}×{n} .{btype}) + C, by a warp. "
             f"A is given compressed ({m}×{kc}: the kept elements in K order), in the registers of a "
             f"dense .{kind.compressed} A; the metadata register says where they sit, in {unit}-bit "
             f"units: per (row, group of {per_group} K elements = four units) a nibble, bits 1:0 the "
             "unit index of the first kept unit, bits 3:2 the second. The sparsity selector (an "
             f"immediate, {', '.join(map(str, kind.selectors))}) picks which thread(s) of each quad "
             "hold it.",
             f"Requires sm_{kind.min_sm} or later and PTX ISA {kind.min_ptx[0]}.{kind.min_ptx[1]}.",
             "", fragment_table(comp, f"compressed A: {comp.nregs} register(s) per lane, {_per_register(comp.frag)}; "
                                      "cells: (row, compressed column)"),
             "metadata (selector 0): (row, K range) -> thread of the quad, bits"]
    for r in (0, 8):
        cells = []
        for g in range(kind.k_units(atype) // 4):
            t, nib = spec.sparse_metadata_position(kind, atype, 0, r, g)
            cells.append(f"K{per_group * g}-{per_group * (g + 1) - 1}: T{t} [{4 * nib + 3}:{4 * nib}]")
        lines.append(f"  row {'g' if r == 0 else 'g+8'}: " + ", ".join(cells))
    lines.append("  (selector F adds F to the thread for 16 units of 16 bits, 2F otherwise)")
    return "\n".join(lines) + "\n", {"a": comp}


def _movmatrix(d) -> tuple[str, dict]:
    lay = matrix_layouts.ldmatrix_layout(1, True)
    text = [d.opcode, "",
            "Transposes an 8×8 matrix of .b16 held in the ldmatrix fragment (register of "
            "lane l: row l/4, columns 2(l%4), 2(l%4)+1) across the warp: afterwards each "
            "lane holds the elements of the transposed matrix in the same positions.",
            "Requires sm_75 or later and PTX ISA 7.8."]
    return "\n".join(text + ["", fragment_table(lay, "result: (row, col) of the source matrix each lane receives")]), {"d": lay}


def _b8_description(form, name: str, src_fmt: str | None) -> list[str]:
    """What the sm_100 .b8 forms move and how (spec.matrix_form says the same as data)."""
    frag, per = form.frag, form.rows_per_matrix
    count = frag.rows // per
    if name == "stmatrix":
        shape = ("16×8 .b8, written column-major (.trans): matrix j's column c goes to row 8j+c; "
                 "register j holds, in bytes 0-1, matrix j's row l/4, columns 2(l%4) and 2(l%4)+1, "
                 "in bytes 2-3 the same columns of row l/4 + 8")
    elif per == 16:
        shape = ("16×16 8-bit elements, read column-major (.trans is mandatory): row c of matrix j "
                 "in memory is its column c; register 2j+k holds matrix j's row l/4 + 8k, columns "
                 "4(l%4)..4(l%4)+3")
    else:
        shape = ("8×16 8-bit containers, row-major; register j holds row l/4 of matrix j, "
                 "containers 4(l%4)..4(l%4)+3")
    lines = [f"{'Loads' if name == 'ldmatrix' else 'Stores'} {count} matrix(es), collectively by "
             f"the warp: {shape}. Lane {per}j+r supplies the address of memory row r of "
             f"matrix j (lanes {frag.rows} and up supply nothing); each row is 16 contiguous "
             "bytes, 16-byte aligned."]
    if src_fmt:
        bits = spec.PACKED_BITS[src_fmt]
        lines.append(f"Each memory row holds 16 unsigned {bits}-bit elements ({src_fmt}: element c in "
                     f"bits {bits}c..{bits}c+{bits - 1}, then {128 - 16 * bits} bits of padding); each "
                     f"lands in an 8-bit container, in its low {bits} bits with the padding zero "
                     "(the PTX ISA text does not say which side the padding is on).")
    lines.append(f"Targets and PTX ISA version — {B8_FORMS.source}")
    return lines


def _matrix_load(d, name: str) -> tuple[str, dict]:
    if name == "movmatrix":
        return _movmatrix(d)
    count = spec.COUNTS[d.get("num")]
    trans = d.get("trans") is not None
    try:
        form, lay = matrix_layouts.matrix_form_layout(name, _t(d, "shape"), count, trans,
                                                      _t(d, "type"), _t(d, "src_fmt"))
    except KeyError as e:
        raise WmmaError(f"`{d.opcode}`: {e.args[0]}") from None
    cells = "cells: (memory row, element) — memory row r is the one lane r names"
    if form.frag.type == "b16":
        verb = "Loads" if name == "ldmatrix" else "Stores"
        need = "sm_75 and PTX ISA 6.5" if name == "ldmatrix" else "sm_90 and PTX ISA 7.8"
        text = [d.opcode, "",
                f"{verb} {count} matrix(es) of 8×8 .b16 {'from' if name == 'ldmatrix' else 'to'} shared "
                f"memory, collectively by the warp. Lane 8j+r supplies the address of row r of matrix j "
                f"(lanes {8 * count} and up supply nothing); each row is 16 contiguous bytes, 16-byte "
                "aligned.",
                f"Register j holds matrix j{', transposed (.trans)' if trans else ''}; matrices are "
                f"stacked: rows 8j..8j+7 below are matrix j.",
                f"Requires {need} or later."]
        cells = "cells: (row, col) of the stacked matrices"
    else:
        text = [d.opcode, ""] + _b8_description(form, name, _t(d, "src_fmt"))
    return "\n".join(text + ["", fragment_table(lay, f"{lay.nregs} register(s) per lane, "
                                                     f"{_per_register(lay.frag)}; {cells}")]), {"d": lay}


def _wgmma(d) -> tuple[str, dict]:
    shape = _t(d, "shape")
    atype, dtype = _t(d, "atype"), _t(d, "dtype")
    m, n, k = spec.shape_mnk(shape)
    if atype not in spec.WGMMA_K or spec.WGMMA_K[atype] != k or n not in spec.wgmma_n_values(atype) \
            or dtype not in spec.WGMMA_ACC[atype]:
        raise WmmaError(f"`{d.opcode}`: wgmma.mma_async has no such form")
    lays = matrix_layouts.wgmma_layouts(n, atype, dtype)
    text = [d.opcode, "",
            f"D ({m}×{n} .{dtype}) = A ({m}×{k} .{atype}) · B ({k}×{n} .{_t(d, 'btype')}) (+ D unless "
            "scale-d is false), asynchronously, by the 128 threads of a warpgroup (sm_90a, PTX ISA 8.0). "
            "B is read from shared memory through a matrix descriptor; A from a descriptor or from "
            "registers (table below). Warp w of the warpgroup holds rows 16w..16w+15; the tables show "
            "warp 0 (threads 0-31).",
            "", fragment_table(lays["d"], f"D: {lays['d'].nregs} register(s) per thread, "
                                          f"{_per_register(lays['d'].frag)}; cells: (row, col)", threads=range(32)),
            "", fragment_table(lays["a"], f"A from registers: {lays['a'].nregs} register(s) per thread, "
                                          f"{_per_register(lays['a'].frag)}", threads=range(32))]
    return "\n".join(text), lays


def metadata_table(lay: matrix_layouts.MetadataLayout, title: str) -> str:
    """Rows g and g+8 of warp 0 (every warp repeats them for its own rows): for each chunk of K,
    the quad thread and the bits of its metadata register that describe it."""
    f = lay.form
    out = [title]
    for r, label in ((0, "row g  "), (8, "row g+8")):
        cells = []
        for c in range(f.chunks):
            t, nib = lay.field(r, c)
            cells.append(f"K{f.chunk * c}-{f.chunk * c + f.chunk - 1}: T{t} [{4 * nib + 3}:{4 * nib}]")
        out.append(f"  {label}: " + ", ".join(cells))
    return "\n".join(out) + "\n"


def _wgmma_sp(d) -> tuple[str, dict]:
    shape = _t(d, "shape")
    atype, dtype = _t(d, "atype"), _t(d, "dtype")
    m, n, k = spec.shape_mnk(shape)
    form = spec.WGMMA_SPARSE.get(atype)
    if form is None or form.k != k or n not in spec.wgmma_n_values(atype) or dtype not in spec.WGMMA_ACC[atype]:
        raise WmmaError(f"`{d.opcode}`: wgmma.mma_async.sp has no such form")
    lays = matrix_layouts.wgmma_sparse_layouts(n, atype, dtype)
    metas = {f"meta{s}": matrix_layouts.wgmma_sparse_metadata_layout(atype, s) for s in form.selectors}
    kc = k // 2
    if form.half_indices:
        sparsity = ("1:2 sparse: one non-zero in every pair of K elements; its 4-bit metadata field "
                    "holds two indices counted in 16-bit halves, 0b0100 for element 0 of the pair "
                    "and 0b1110 for element 1 (no other value is meaningful)")
    else:
        sparsity = ("2:4 sparse: at most two non-zeros in every group of four K elements; its 4-bit "
                    "metadata field holds their indices, bits 1:0 the first and bits 3:2 the second "
                    "(0b0000, 0b0101, 0b1010 and 0b1111 are invalid)")
    text = [d.opcode, "",
            f"D ({m}×{n} .{dtype}) = A ({m}×{k} .{atype}, {sparsity}) · B ({k}×{n} .{_t(d, 'btype')}) "
            "(+ D unless scale-d is false), asynchronously, by the 128 threads of a warpgroup (sm_90a, "
            f"PTX ISA 8.0). A is given compressed, {m}×{kc} (its kept elements in K order), from "
            f"registers or a descriptor exactly as the dense A of K = {kc}; B ({k} K) through a "
            "descriptor. The metadata operand is a 32-bit register; the sparsity selector (an "
            f"immediate: {' or '.join(map(str, form.selectors))}) names which threads of each quad "
            "hold it. Warp w describes its rows 16w..16w+15.",
            "", metadata_table(metas[f"meta{form.selectors[0]}"], f"metadata, selector {form.selectors[0]} "
                                                                  "(T: thread of the quad; bits of its register):")]
    for sel in form.selectors[1:]:
        text.append(metadata_table(metas[f"meta{sel}"], f"metadata, selector {sel}:"))
    text += ["", fragment_table(lays["d"], f"D: {lays['d'].nregs} register(s) per thread, "
                                           f"{_per_register(lays['d'].frag)}; cells: (row, col)", threads=range(32)),
             "", fragment_table(lays["a"], f"compressed A from registers: {lays['a'].nregs} register(s) per thread, "
                                           f"{_per_register(lays['a'].frag)}; cells: (row, compressed column)",
                                threads=range(32))]
    return "\n".join(text), {**lays, **metas}


def describe(opcode: str, target: str = "sm_90") -> tuple[str, dict]:
    """(text, {name: layout}) explaining one matrix instruction's opcode; WmmaError if the
    instruction has no such form."""
    d = decode(opcode.split()[0])
    if d.others:
        raise WmmaError(f"`{d.opcode}`: unknown modifier(s) {', '.join(o[0] for o in d.others)}")
    if d.name == "mma":
        return _mma(d, target)
    if d.name.startswith("mma.sp"):
        return _mma_sp(d)
    if d.name in ("ldmatrix", "stmatrix", "movmatrix"):
        return _matrix_load(d, d.name)
    if d.name == "wgmma.mma_async":
        return _wgmma(d)
    if d.name == "wgmma.mma_async.sp":
        return _wgmma_sp(d)
    raise WmmaError(f"`{d.opcode}` is not a matrix instruction explained here")


# ---------------------------------------------------------------- pictures

def fragments_svg(title: str, layouts: dict) -> str:
    """One SVG with a picture per fragment, side by side: each matrix element in the colour of
    the lane that holds it, labelled with the lane and register (for wgmma the thread is
    lane + 32·warp; colours repeat per warp)."""
    pieces, x0, height = [], 8, 0
    for name, lay in layouts.items():
        rows, cols = lay.dims
        if lay.group is not None:
            rows = rows                      # quadpair: product 0 shown
        cw = max(8, min(40, 900 // cols))
        ch = max(cw, 24) if cw >= 30 else cw
        thread, reg, slot = lay.owner()
        top = 56
        pieces.append(f'<text x="{x0}" y="{top - 14}" font-size="12">{escape(name.upper())}: '
                      f'{escape(lay.name)} ({rows}×{cols})</text>')
        for r in range(rows):
            for c in range(cols):
                th, rg, sl = int(thread[r, c]), int(reg[r, c]), int(slot[r, c])
                x, y = x0 + c * cw, top + r * ch
                tip = f"({r}, {c}): {'thread' if lay.threads > 32 else 'lane'} {th} register {rg} slot {sl}"
                pieces.append(f'<rect x="{x}" y="{y}" width="{cw}" height="{ch}" fill="{lane_colour(th % 32)}" '
                              f'stroke="#444" stroke-width="0.3"><title>{escape(tip)}</title></rect>')
                if cw >= 30:
                    pieces.append(f'<text x="{x + cw / 2}" y="{y + ch / 2 - 2}" font-size="8" '
                                  f'text-anchor="middle">L{th}</text>')
                    pieces.append(f'<text x="{x + cw / 2}" y="{y + ch / 2 + 8}" font-size="7" '
                                  f'text-anchor="middle">r{rg}{"." + str(sl) if lay.slots > 1 else ""}</text>')
        x0 += cols * cw + 24
        height = max(height, top + rows * ch + 10)
    width = x0
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
            f'viewBox="0 0 {width} {height}" font-family="monospace">'
            f'<title>{escape(title)}</title><text x="8" y="18" font-size="13">{escape(title)}</text>')
    return head + "\n" + "\n".join(pieces) + "\n</svg>\n"

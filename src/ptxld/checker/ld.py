"""PTX02xx (ld qualifiers), PTX03xx (ld operands) and PTX04xx (ld.global.nc), one function each."""
from __future__ import annotations

from ..ptx.nodes import Address, Int, Name, Sink, Vector
from ..diagnostics import Label
from ..spec import ld as LD
from ..spec.opcodes import is_predefined
from ..spec.types import kind_bits
from .context import Checker, reg_type
from .gates import check_ld_gates
from .operands import check_address, destination_types, dest_compatible, type_name

_ORDERS_WITH_SCOPE = (".relaxed", ".acquire")
_STRONG = (".volatile", ".relaxed", ".acquire")
_ALLOWED = LD.ALLOWED_SPACES
_GROUP_WORD = {"space": "state spaces", "cop": "cache operators", "scope": "scopes", "vec": "vector sizes",
               "type": "types", "prefetch": "prefetch sizes", "l1_evict": "L1 eviction priorities",
               "l2_evict": "L2 eviction priorities", "cache_hint": "`.L2::cache_hint`", "nc": "`.nc`",
               "mmio": "`.mmio`"}


def check_ld(c: Checker, ins, m) -> None:
    """Every rule on one `ld`: its qualifiers and gates, then its operands."""
    op = m.facts
    unified = m.address is not None and m.address.unified
    if unified or op not in c.clean_ld:
        before = len(c.diags)
        _qualifier_set(c, ins, m)
        _memory_order(c, m)
        _mmio(c, m)
        _cache_and_eviction(c, m)
        _widths(c, m)
        _spaces(c, m)
        if m.nc:
            _nc(c, m)
        check_ld_gates(c, m)
        # The rules above read nothing but the opcode, except under `.L2::evict_*` and `.v8`
        # (they look at the destinations) and on a `.unified` address: an opcode that passed
        # them once passes them everywhere in this module.
        if len(c.diags) == before and not unified and op.vec != ".v8" and "l2_evict" not in m.quals:
            c.clean_ld.add(op)
    ops = ins.operands
    if not _operand_shape(c, ins, m, ops):
        return
    _destination(c, ins, m)
    if m.address is not None:
        check_address(c, ins, m.address, m.space_base, m.space, ld=True, nc=m.nc)
        _param_rules(c, ins, m)
        _unified(c, ins, m)
    _cache_policy(c, ins, m)


# ------------------------------------------------------------------ qualifiers
def _qualifier_set(c: Checker, ins, m) -> None:
    for text, s, e in m.unknown:
        hint = ""
        if text in (".wb", ".wt"):
            hint = "`.wb`/`.wt` are store cache operators; loads use `.ca .cg .cs .lu .cv`"
        elif text == ".L2::evict_unchanged":
            hint = "`.L2::evict_unchanged` exists for `createpolicy`; `ld` has `.L2::evict_normal/first/last`"
        elif text in (".ci", ".E"):
            hint = f"`{text}` is SASS (LDG) syntax, not PTX"
        c.emit("PTX0201", s, e, f"`{text}` is not a qualifier of `ld`", label="unknown qualifier",
               help=hint or "remove it, or correct its spelling")
    for group, text, s, e in m.repeated:
        first = m.quals[group]
        if group == "sem":
            c.emit("PTX0204", s, e, f"`{first[0]}` and `{text}` are mutually exclusive",
                   label="second memory-order qualifier",
                   secondary=[(first[1], first[2], "first one here")],
                   help="keep one of `.weak`, `.volatile`, `.relaxed`, `.acquire`")
        elif text == first[0]:
            c.emit("PTX0202", s, e, f"`{text}` is written twice", label="repeated",
                   secondary=[(first[1], first[2], "first here")], help="remove the repetition", fix="")
        else:
            c.emit("PTX0202", s, e, f"two {_GROUP_WORD.get(group, group)}: `{first[0]}` and `{text}`",
                   label="conflicting qualifier", secondary=[(first[1], first[2], "first one here")],
                   help="keep one of them")
    if "type" not in m.quals:
        s = ins.opcode_start
        c.emit("PTX0224", s, s + len(ins.opcode), "`ld` needs a type such as `.u32` or `.b64`",
               label="no `.type`", help="append the type of the loaded data, e.g. `.b32`")
    elif m.vec in (".v2", ".v4") and m.quals["vec"][2] != m.quals["type"][1]:
        # ptxas 13.0 warns whenever `.v2`/`.v4` is not directly followed by the type (and is
        # silent about `.v8` anywhere)
        _, s, e = m.quals["vec"]
        after = s > m.quals["type"][1]
        what = "vector after type" if after else "not right before the type"
        fix_text = m.canonical_opcode() if not m.unknown and not m.repeated else None
        c.emit("PTX0225", s, e, f"`{m.vec}` is written after the type `{m.type}`" if after else
               f"`{m.vec}` is not written right before the type `{m.type}`",
               label=what, help="write the vector qualifier right before the type", fix=None)
        if fix_text:
            d = c.diags[-1]
            d.start, d.end = ins.opcode_start, ins.opcode_start + len(ins.opcode)
            d.line, d.column = c.source.position(d.start)
            d.end_line, d.end_column = c.source.position(d.end)
            d.secondary.append(_label(s, e, what))
            d.label = f"canonical: `{fix_text}`"
            d.fix = fix_text
            d.help = f"write `{fix_text}`"


def _label(s, e, msg):
    return Label(s, e, msg)


def _memory_order(c: Checker, m) -> None:
    sem = m.quals.get("sem")
    scope = m.quals.get("scope")
    if m.mmio:
        return  # _mmio reports the whole `.mmio.relaxed.sys` form
    if sem and sem[0] in _ORDERS_WITH_SCOPE and scope is None:
        c.emit("PTX0205", sem[1], sem[2], f"`ld{sem[0]}` needs a scope", label="no scope given",
               help=f"add one of `.cta`, `.cluster`, `.gpu`, `.sys`, e.g. `ld{sem[0]}.gpu`")
    if scope and not (sem and sem[0] in _ORDERS_WITH_SCOPE):
        if sem:
            c.emit("PTX0206", scope[1], scope[2], f"a scope cannot be combined with `{sem[0]}`",
                   label="scope not allowed", secondary=[(sem[1], sem[2], f"`{sem[0]}` takes no scope")],
                   help=f"remove `{scope[0]}`, or use `.relaxed{scope[0]}`")
        else:
            c.emit("PTX0206", scope[1], scope[2], f"the scope `{scope[0]}` needs `.relaxed` or `.acquire`",
                   label="scope without memory order",
                   help=f"write `ld.relaxed{scope[0]}` or `ld.acquire{scope[0]}`, or remove `{scope[0]}`")
    cop = m.quals.get("cop")
    if cop and sem and sem[0] in _STRONG:
        c.emit("PTX0203", cop[1], cop[2], f"`{sem[0]}` cannot be combined with cache operator `{cop[0]}`",
               label="cache operator not allowed here",
               secondary=[(sem[1], sem[2], f"`{sem[0]}` selects a form without `.cop`")],
               help="remove the cache operator", fix="")


def _mmio(c: Checker, m) -> None:
    if not m.mmio:
        return
    mm = m.quals["mmio"]
    sem = m.quals.get("sem")
    scope = m.quals.get("scope")
    acquire_ok = c.version is not None and c.version >= (9, 3)
    if sem is None or sem[0] not in ((".relaxed", ".acquire") if acquire_ok else (".relaxed",)):
        at = sem or mm
        c.emit("PTX0207", at[1], at[2], "`.mmio` must be written `.mmio.relaxed.sys`",
               label="needs `.relaxed`" if sem is None else f"`{sem[0]}` not allowed with `.mmio`",
               help="write `ld.mmio.relaxed.sys.global.<type>`")
    elif scope is None or scope[0] != ".sys":
        at = scope or mm
        c.emit("PTX0207", at[1], at[2], "only the `.sys` scope is valid for `ld.mmio`",
               label="needs `.sys`" if scope is None else "not `.sys`",
               help="use `.sys`", fix=".sys" if scope is not None else None)
    for g in ("vec", "cop", "l1_evict", "l2_evict", "prefetch", "cache_hint"):
        q = m.quals.get(g)
        if q:
            c.emit("PTX0208", q[1], q[2], f"`ld.mmio` cannot take `{q[0]}`", label="not allowed with `.mmio`",
                   secondary=[(mm[1], mm[2], "the `.mmio` form has no other qualifiers")],
                   help=f"remove `{q[0]}`", fix="")


def _cache_and_eviction(c: Checker, m) -> None:
    cop, l1, l2 = m.quals.get("cop"), m.quals.get("l1_evict"), m.quals.get("l2_evict")
    sem = m.quals.get("sem")
    if m.mmio:
        return
    if l1 and cop:
        c.emit("PTX0210", l1[1], l1[2], f"`{l1[0]}` cannot be combined with cache operator `{cop[0]}`",
               label="eviction priority", secondary=[(cop[1], cop[2], "cache operator")],
               help="keep either the cache operator or the L1 eviction priority")
    volatile = sem if sem and sem[0] == ".volatile" else None
    if volatile:
        for q in (l1, m.quals.get("cache_hint")):
            if q:
                c.emit("PTX0212", q[1], q[2], f"`.volatile` cannot be combined with `{q[0]}`",
                       label="not in the `ld.volatile` form",
                       secondary=[(volatile[1], volatile[2], "`ld.volatile{.ss}{.level::prefetch_size}{.vec}.type`")],
                       help=f"remove `{q[0]}`", fix="")
    if l2:
        if not m.is_256_bit:
            c.emit("PTX0213", l2[1], l2[2],
                   f"`{l2[0]}` needs a 256-bit load (`.v8` of a 32-bit type or `.v4` of a 64-bit type)",
                   label=f"on a {m.access_bits or '?'}-bit load" if m.access_bits else "not a 256-bit load",
                   help="use `.v8.b32` or `.v4.b64`, or remove the L2 eviction priority")
        for other, why in ((cop, "a cache operator"), (volatile, "`.volatile`")):
            if other:
                c.emit("PTX0211", l2[1], l2[2], f"the PTX ISA has no form with `{l2[0]}` and {why}",
                       label="L2 eviction priority", secondary=[(other[1], other[2], "outside that form")],
                       help=f"remove `{l2[0]}` or `{other[0]}` for portable PTX")
        if m.is_256_bit:
            for d in m.dests:
                rt = destination_types(c, m.instruction, d)
                if rt and rt[1] != m.type_bits:
                    c.emit("PTX0214", d.start, d.end,
                           f"with `{l2[0]}`, every destination must be a {m.type_bits}-bit register",
                           label=f"{rt[1]}-bit register", secondary=[(l2[1], l2[2], "L2 eviction priority")],
                           help=f"use `{type_name(('b', m.type_bits))}` registers")
                    break


def _widths(c: Checker, m) -> None:
    vec = m.quals.get("vec")
    if not vec or m.type_bits is None:
        return
    bits = m.access_bits
    if bits > 128 and not m.is_256_bit:
        c.emit("PTX0216", vec[1], m.quals["type"][2], f"`{vec[0]}{m.type}` is {bits} bits wide",
               label="wider than 128 bits",
               help="256-bit loads are `.v8` of 32-bit types and `.v4` of 64-bit types")
    if vec[0] == ".v8" and m.type_bits < 32:
        c.emit("PTX0215", vec[1], vec[2], f"the PTX ISA specifies `.v8` only for 32-bit types, not `{m.type}`",
               label=".v8 with a narrow type", help="use `.v4`/`.v2` or a 32-bit type")
    if vec[0] == ".v8":
        _v8_crashes(c, m)


def _v8_crashes(c: Checker, m) -> None:
    """`.v8` forms on which ptxas 13.0 segfaults (ptxas-vs-seeds 5.1, 5.2)."""
    types = [t for t in (destination_types(c, m.instruction, d) for d in m.dests) if t]
    widths = {t[1] for t in types}
    vec = m.quals["vec"]
    why = None
    # 8- and 16-bit types into registers of their own size: a segfault every run (when the
    # registers pass the type check; otherwise ptxas reports the mismatch first).
    if m.type_bits in (8, 16) and widths == {m.type_bits} and all(
            dest_compatible(m.type, t, vector=True) for t in types):
        why, always = f"`.v8` of a {m.type_bits}-bit type into {m.type_bits}-bit registers", True
    elif m.type_bits == 32 and 64 in widths:
        why, always = "`.v8` of a 32-bit type into 64-bit registers", False
    elif m.type_bits < 32 and m.space_base not in (None, ".global"):
        why, always = f"`.v8` of a {m.type_bits}-bit type from `{m.space_base}`", False
    if why:
        c.emit("PTX0701", vec[1], m.quals["type"][2],
               f"ptxas 13.0 {'crashes' if always else 'sometimes crashes'} on {why}",
               label="segmentation fault in ptxas" + ("" if always else " (nondeterministic)"),
               notes=["measured with ptxas 13.0.88; the instruction is "
                      "otherwise judged by the other diagnostics"],
               help="load with `.v4` twice, or into 32-bit registers" if m.type_bits == 16 else "")


def _spaces(c: Checker, m) -> None:
    space = m.space_base
    checks = []
    sem = m.quals.get("sem")
    if sem and sem[0] in _ALLOWED:
        checks.append((sem, _ALLOWED[sem[0]]))
    if m.mmio:
        checks.append((m.quals["mmio"], _ALLOWED[".mmio"]))
    for g in ("prefetch", "cache_hint", "l1_evict"):
        q = m.quals.get(g)
        if q:
            checks.append((q, _ALLOWED[g]))
    if m.is_256_bit:
        q = m.quals["vec"]
        checks.append(((f"{m.vec}{m.type}", q[1], m.quals["type"][2]), _ALLOWED[".v8/.v4.64"]))
    if m.address is not None and m.address.unified:
        a = m.address
        checks.append(((".unified", a.end - len(".unified"), a.end), _ALLOWED[".unified"]))
    for (text, s, e), allowed in checks:
        if space in allowed:
            continue
        if text == ".volatile" and space == ".local":
            continue  # allowed from PTX 9.1: a version gate (PTX0601)
        sp = m.quals.get("space")
        names = ", ".join(x for x in ("`.global`", "`.shared`", "`.local`") if x.strip("`") in allowed)
        where = f"`{space}`" if space else "generic addressing"
        c.emit("PTX0209", s, e, f"`{text}` cannot be used with {where}", label=f"not allowed with {where}",
               secondary=[(sp[1], sp[2], "state space")] if sp else [],
               help=f"`{text}` allows {names}" + (" or generic addressing" if None in allowed else ""))


def _nc(c: Checker, m) -> None:
    nc = m.quals["nc"]
    if m.space_base != ".global":
        sp = m.quals.get("space")
        c.emit("PTX0401", nc[1], nc[2], "`.nc` needs the `.global` state space",
               label="non-coherent load", secondary=[(sp[1], sp[2], "not `.global`")] if sp else [],
               help="write `ld.global.nc`", fix=None)
    cop = m.quals.get("cop")
    if cop and cop[0] not in LD.NC_COPS:
        c.emit("PTX0402", cop[1], cop[2], f"`ld.global.nc` cannot take the cache operator `{cop[0]}`",
               label="not one of `.ca .cg .cs`", help="use `.ca`, `.cg` or `.cs`, or none")
    for g in ("sem", "mmio"):
        q = m.quals.get(g)
        if q:
            c.emit("PTX0403", q[1], q[2], f"`{q[0]}` cannot be combined with `.nc`",
                   label="memory order on a non-coherent load", secondary=[(nc[1], nc[2], "`.nc`")],
                   help=f"remove `{q[0]}`" + (" and its scope" if m.scope else ""))
            break


# ------------------------------------------------------------------ operands
def _operand_shape(c: Checker, ins, m, ops) -> bool:
    """Two or three operands `d, [a]{, cache-policy}`; False when nothing more can be checked."""
    if not ops:
        return False
    end = ins.end
    if len(ops) < 2 or not isinstance(ops[1], Address):
        at = ops[1] if len(ops) > 1 else ops[0]
        c.emit("PTX0302", at.start, at.end if len(ops) > 1 else end - 1,
               "`ld` needs a destination and an address in brackets: `d, [a]`",
               label="expected `[address]`" if len(ops) > 1 else "missing the address",
               help=f"write `[{getattr(at, 'name', 'a')}]`" if len(ops) > 1 else "")
        return False
    if len(ops) > 3:
        extra = ops[3]
        c.emit("PTX0302", extra.start, ops[-1].end, "too many operands for `ld`",
               label="unexpected operand", help="`ld` takes `d, [a]` and an optional cache-policy")
    return True


def _destination(c: Checker, ins, m) -> None:
    d = m.dest_operand
    vec = m.quals.get("vec")
    n = m.vector_length
    if isinstance(d, Sink):
        c.emit("PTX0314", d.start, d.end, "the destination of `ld` cannot be the sink `_`",
               label="sink", help="load into a register")
        return
    if isinstance(d, Vector) and len(d.items) == 1 and not vec:
        d = d.items[0]  # `{%r}` is a scalar to ptxas
    if isinstance(d, Vector):
        if not vec:
            c.emit("PTX0305", d.start, d.end, f"a vector destination needs `.v{len(d.items)}`",
                   label=f"{len(d.items)} registers", help=f"write `ld...v{len(d.items)}{m.type or ''}`")
            return
        if len(d.items) != n:
            c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` loads {n} elements into {len(d.items)} registers",
                   label=f"{len(d.items)} registers", secondary=[(vec[1], vec[2], f"{n} elements")])
            return
        items = d.items
        if all(isinstance(x, Sink) for x in items):
            c.emit("PTX0314", d.start, d.end, "a destination made only of sinks loads nothing",
                   label="only `_`", help="name at least one register")
            return
        if any(isinstance(x, Sink) for x in items) and not m.is_256_bit:
            s = next(x for x in items if isinstance(x, Sink))
            c.emit("PTX0217", s.start, s.end,
                   "the PTX ISA allows `_` only in `.v8` 32-bit and `.v4` 64-bit destinations",
                   label="sink", help="load into a register you do not use")
        _vector_types(c, ins, m, items)
        seen = {}
        for x in items:
            if isinstance(x, Name):
                if x.text in seen:
                    c.emit("PTX0313", x.start, x.end, f"`{x.text}` is written twice in the destination",
                           label="duplicate", secondary=[(seen[x.text].start, seen[x.text].end, "first")],
                           notes=["PTX ISA 6.4.3: destination vector elements must be distinct, "
                                  "otherwise behaviour is undefined"])
                    break
                seen[x.text] = x
        return
    if vec and isinstance(d, Name) and d.component is None:
        var = c.lookup(ins, d.name)
        whole = getattr(var, "vector", None) if getattr(var, "space", None) == ".reg" else None
        if whole == vec[0]:
            # a vector register used whole (`.reg .v4 .u32 v;` ... `ld.v4.u32 v, [a]`; PTX 8.0)
            t = reg_type(var)
            if t and m.type and not dest_compatible(m.type, t):
                _type_error(c, m, d, t)
            return
        if whole:
            c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` loads {n} elements into the `{whole}` "
                   f"register `{d.text}`", label=f"a {whole} register",
                   secondary=[(vec[1], vec[2], f"{n} elements")])
            return
    if vec:
        c.emit("PTX0305", d.start, d.end, f"`{vec[0]}` needs a vector destination `{{...}}` of {n} registers",
               label="a single operand", secondary=[(vec[1], vec[2], f"{n} elements")])
        return
    if isinstance(d, Name):
        t = _register_or_report(c, ins, d)
        if t and m.type and not dest_compatible(m.type, t):
            _type_error(c, m, d, t)
        return
    c.emit("PTX0303", d.start, d.end, "the destination of `ld` must be a register",
           label="not a register")


def _register_or_report(c: Checker, ins, d: Name):
    """The register's (kind, bits), or None after reporting a non-register destination."""
    var = c.lookup(ins, d.name)
    if var is None:
        if is_predefined(d.name):
            c.emit("PTX0303", d.start, d.end, f"the special register `{d.name}` cannot be written",
                   label="read-only special register")
        return None  # undeclared: PTX0301
    if getattr(var, "kind", "") != "variable" or var.space != ".reg":
        where = getattr(var, "space", None) or "a function"
        c.emit("PTX0303", d.start, d.end, f"`{d.name}` is not a register (it is in `{where}`)",
               label="must be a `.reg` register",
               help="load into a register, then `st` it if the value must go to memory")
        return None
    t = reg_type(var)
    if var.vector:
        return None  # a vector register variable: its components are checked by ptxas alike
    return t


def _type_error(c: Checker, m, d, t) -> None:
    q = m.quals["type"]
    kind, bits = kind_bits(m.type)
    if t[0] == "pred":
        why = "a predicate cannot be loaded"
    elif t[1] < bits:
        why = f"a {t[1]}-bit register is narrower than the {bits}-bit type"
    elif m.type == ".b128":
        why = "a `.b128` load needs a `.b128` register"
    elif kind == "f":
        why = (f"a `{m.type}` load needs a `{m.type}` register or a bit-size register of at least "
               f"{bits} bits")
    else:
        why = f"`{m.type}` data cannot go to a `{type_name(t)}` register (Table 28)"
    fix_type = {"f": f".b{bits}"}.get(t[0]) if kind in "us" and t[0] == "f" and t[1] == bits else None
    c.emit("PTX0304", d.start, d.end, f"`{m.type}` cannot be loaded into `{d.text}` ({type_name(t)})",
           label=why, secondary=[(q[1], q[2], "load type")],
           help=f"load with `{fix_type}`, which any {bits}-bit register accepts" if fix_type else "")


def _vector_types(c: Checker, ins, m, items) -> None:
    types = []
    for x in items:
        if isinstance(x, Name):
            t = _register_or_report(c, ins, x)
            if t is not None:
                types.append((x, t))
        elif not isinstance(x, Sink):
            c.emit("PTX0303", x.start, x.end, "vector elements must be registers", label="not a register")
            return
    if not types:
        return
    if all(t[0] == "pred" for _, t in types):
        if m.type:  # without a type, PTX0224 has said what is wrong
            x, t = types[0]
            _type_error(c, m, x, t)
        return
    # ptxas 13.0, measured over pairs and 4-tuples of register classes: elements must have one
    # size (a predicate counts as 32 bits: "Incompatible elements of vector expression"); each
    # element's type must go with its left neighbour's, where a `.b` type goes with any type and
    # `.u` with `.s` ("Vector with elements of different types are not allowed in ld
    # instruction"). A vector of mixed types is then typed as the bit-size type of that size.
    x0, t0 = next((x, t) for x, t in types if t[0] != "pred")
    for x, t in types:
        if _element_bits(t) != _element_bits(t0):
            c.emit("PTX0306", x.start, x.end, "the vector mixes registers of different sizes",
                   label=_element_label(t), secondary=[(x0.start, x0.end, _element_label(t0))])
            return
    for (xa, ta), (x, t) in zip(types, types[1:]):
        a, b = ta[0], t[0]
        if a != b and "b" not in (a, b) and {a, b} != {"u", "s"}:
            c.emit("PTX0306", x.start, x.end, "the vector mixes registers of different types",
                   label=type_name(t), secondary=[(xa.start, xa.end, type_name(ta))],
                   help="use registers of one type, or bit-size (`.b`) registers")
            return
    vt = t0 if len({t[0] for _, t in types}) == 1 else ("b", t0[1])
    if m.type and not dest_compatible(m.type, vt, vector=True):
        _type_error(c, m, x0, vt)


def _element_bits(t) -> int:
    return 32 if t[0] == "pred" else t[1]


def _element_label(t) -> str:
    return "predicate (32-bit to ptxas)" if t[0] == "pred" else f"{t[1]}-bit"


def _cache_policy(c: Checker, ins, m) -> None:
    hint = m.quals.get("cache_hint")
    pol = m.cache_policy
    if hint and pol is None:
        c.emit("PTX0218", hint[1], hint[2], "`.L2::cache_hint` needs a cache-policy operand",
               label="no cache-policy operand", help="add the 64-bit policy: `d, [a], %policy`")
    elif pol is not None and not hint:
        c.emit("PTX0218", pol.start, pol.end, "a cache-policy operand needs `.L2::cache_hint`",
               label="cache-policy operand", help="add `.L2::cache_hint` before the type")
    if pol is None:
        return
    if isinstance(pol, Int):
        return
    if isinstance(pol, Name):
        var = c.lookup(ins, pol.name)
        if var is None:
            return  # PTX0301
        t = reg_type(var)
        if t is not None and t[1] == 64 and t[0] in "bus":
            return
        what = type_name(t) if t else f"`{getattr(var, 'space', 'function')}` variable"
        c.emit("PTX0311", pol.start, pol.end, f"the cache-policy operand must be a 64-bit integer register, not {what}",
               label=what, help="use a `.b64` register set by `createpolicy`")
        return
    c.emit("PTX0311", pol.start, pol.end, "the cache-policy operand must be a 64-bit register or an integer",
           label="not a cache policy")


def _param_rules(c: Checker, ins, m) -> None:
    if m.space_base != ".param" or m.address.base is None:
        return
    var = c.lookup(ins, m.address.base.name)
    if var is None or getattr(var, "kind", "") != "variable" or var.space != ".param":
        return
    a = m.address.base
    func = ins.function
    owner = var.function
    # (declarations compare by identity)
    is_param = owner is not None and var in owner.params
    is_return = owner is not None and var in owner.returns
    if is_return and owner is func:
        c.emit("PTX0223", a.start, a.end, f"`{a.name}` is this function's return parameter: it can only be written",
               label="return parameter", help="keep the value in a register and `st.param` it at the end")
        return
    local = owner is not None and not is_param and not is_return
    if local and ins.guard is not None and a.name in c.call_returns_of(func):
        g = ins.guard
        c.emit("PTX0222", g.start, g.end, "reading a call's return value with `ld.param` cannot be predicated",
               label="predicate", secondary=[(a.start, a.end, "return value of a call")],
               help="load unconditionally, then select with `selp` or a predicated `mov`")
    if local and func is not None and func.is_entry and a.name not in c.call_returns_of(func):
        c.emit("PTX0701", a.start, a.end, f"ptxas 13.0 crashes on `ld.param` of `{a.name}`, a `.param` declared in a kernel",
               label="call-argument `.param` read back",
               notes=["measured with ptxas 13.0.88: segmentation fault, no diagnostic"],
               help="keep the value in a register instead of reading the argument back")
    sub = m.space
    if sub in (".param::entry", ".param::func") and owner is not None and (is_param or is_return):
        kernel_param = is_param and owner.is_entry
        if (sub == ".param::entry") != kernel_param:
            want = "a kernel parameter" if sub == ".param::entry" else "a device-function parameter"
            got = "a kernel parameter" if kernel_param else "a device-function parameter"
            q = m.quals["space"]
            c.emit("PTX0226", a.start, a.end, f"`ld{sub}` reads {want}, but `{a.name}` is {got}",
                   label=got, secondary=[(q[1], q[2], f"expects {want}")],
                   help="use `ld.param` without a sub-qualifier", fix=None)


def _unified(c: Checker, ins, m) -> None:
    a = m.address
    base = a.base
    var = c.lookup(ins, base.name) if base is not None else None
    if not a.unified and (var is None or not getattr(var, "attributes", None)):
        return  # neither `.unified` written nor a variable declared `.unified`
    is_var = var is not None and getattr(var, "kind", "") == "variable" and var.space != ".reg"
    unified_var = is_var and any(x.startswith(".unified") for x in var.attributes)
    if a.unified:
        us = a.end - len(".unified")
        if base is not None and var is None and not base.name.startswith("%"):
            c.emit("PTX0701", us, a.end, "ptxas 13.0 crashes on `.unified` with an undeclared name",
                   label="after `Illegal operand type`, ptxas segfaults",
                   notes=["measured with ptxas 13.0.88: deterministic segmentation fault"])
        if is_var and not unified_var:
            c.emit("PTX0219", us, a.end, f"`{base.name}` is not declared with `.attribute(.unified)`",
                   label="`.unified` on an ordinary variable", secondary=[(var.start, var.end, "declared here")],
                   help="remove `.unified`", fix="")
        form = m.quals.get("sem") if m.sem in _STRONG else (m.quals.get("mmio") or m.quals.get("nc"))
        if form:
            c.emit("PTX0221", us, a.end, f"the PTX ISA's `ld{form[0]}` form has no `.unified` operand",
                   label="`.unified`", secondary=[(form[1], form[2], "form without `.unified`")])
    elif unified_var:
        c.emit("PTX0220", a.start, a.end, f"`{base.name}` is a `.unified` variable: read it as `[{base.name}].unified`",
               label="missing `.unified`", secondary=[(var.start, var.end, "declared `.unified` here")],
               fix=c.source.text[a.start:a.end] + ".unified")

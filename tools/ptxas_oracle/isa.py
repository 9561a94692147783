"""Cases for every instruction that has a record in `ptxld.spec` (the whole-ISA differential).

For each record with forms, families `isa.<name>.forms` and `isa.<name>.mutations`:
* forms: every form, over the values of its slots (all of them, or a fixed sample when the
  product is large), on a target and version its gates allow, and on the target/version just
  below each gate; operands built from the form's roles (registers of the slot's type declared
  on the fly, immediates, predicates, addresses, vectors);
  the exact corner of its gates (the oldest target at the oldest version they allow), and on a
  sweep of targets (SWEEP) at their newest version;
* mutations: near misses of a well-formed instance — a required slot dropped, a value the form
  does not allow, a group the form does not name, an unknown or repeated modifier, an operand
  too many or too few, a register of another type, an immediate where a register belongs;
* operands: every operand of a form in turn as a register of every class (REGISTER_CLASSES), an
  immediate, a predicate, a special register (the operand type rules, generalised); for the
  records of VECTOR_ELEMENTS, the elements of a `.v2/.v4/.v8` vector operand too, all of one
  class at a time.

Nothing here knows an instruction: everything comes from the records, so a new record gets its
cases by itself (`python -m ptxas_oracle run` then records ptxas's verdicts).
"""
from __future__ import annotations

import itertools
import random

from ptxld.spec import instructions
from ptxld.spec.forms import spelled
from ptxld.spec.isa import Form, InstructionSpec
from ptxld.spec.targets import parse_target
from ptxld.spec.types import TYPES

# generate.py hands these over (it imports this module, so this module cannot import it)
TARGETS: tuple = ()
Kernel = None
versions_for = None

# the load family has families of its own (generate.py)
SKIP = {"ld", "wmma.load"}
PER_FORM = 48          # opcode spellings tried per form at most
MUTATIONS_PER_FORM = 24
OPERAND_SPELLINGS = 2  # spellings per form whose operands are each swapped through every class
OPERAND_FORMS = 24          # forms per record whose operands are swapped (a sample where there are more)
# targets every spelling is also tried on (at their newest PTX version), beside its gate placements
SWEEP = ("sm_75", "sm_80", "sm_90a", "sm_100a", "sm_120")
REGISTER_CLASSES = (".pred", ".b16", ".b32", ".b64", ".u16", ".u32", ".u64", ".s16", ".s32", ".s64",
                    ".f16", ".f16x2", ".f32", ".f64", ".b128", ".u8")
DEFAULT = ("sm_90", (8, 5))
# records (by name prefix) whose vector operands (a count from the `.vec` slot) also get their
# elements swapped through REGISTER_CLASSES: a sample that grows as records are checked for it
VECTOR_ELEMENTS = ("multimem.",)

# register class a value of each type is held in (ptxas has no .bf16/.tf32/.e4m3 registers)
_HOLDER = {".bf16": ".b16", ".bf16x2": ".b32", ".tf32": ".b32", ".e4m3": ".b16", ".e5m2": ".b16",
           ".e4m3x2": ".b16", ".e5m2x2": ".b16", ".u16x2": ".b32", ".s16x2": ".b32", ".u8x4": ".b32",
           ".s8x4": ".b32", ".f32x2": ".b64"}
_IMMEDIATE = {"f": "0f3F800000", "pred": "1"}

# calls: a callee per shape of the call (how many parenthesised lists: none, arguments, return
# value and arguments), declared in the module, and the prototype an indirect call of that shape
# names (declared in the kernel); a `.branchtargets` list for brx.idx
_CALLEES = ("f_v", "f_p", "f_rp")
CALL_PRELUDE = (".func f_v()", "{", "\tret;", "}", ".func f_p(.param .b32 a)", "{", "\tret;", "}",
                ".func (.param .b32 r) f_rp(.param .b32 a)", "{", "\tst.param.b32 [r], 1;", "\tret;", "}")
_PROTOTYPES = ("_ ()", "_ (.param .b32 _)", "(.param .b32 _) _ (.param .b32 _)")
# texture and surface instructions: the handles they read, declared at module scope (a sampler
# only under `texmode_independent`, where ptxas refuses one in unified mode)
TEXTURE_PRELUDE = (".global .texref tex_t;", ".global .surfref surf_u;")
INDEPENDENT_PRELUDE = TEXTURE_PRELUDE + (".global .samplerref samp_s;",)
_HANDLE_KINDS = frozenset({"tex", "surf"})


def records() -> list[InstructionSpec]:
    out = []
    for name in sorted(instructions.names()):
        spec = instructions.spec_of(name)
        if name not in SKIP and spec is not None and spec.forms:
            out.append(spec)
    return out


def _sm(target: str) -> int:
    return parse_target(target).number


def _placements(spec: InstructionSpec, form: Form, values: dict[str, str]):
    """`_base_placements`, with the gate corner and the target sweep."""
    out = _base_placements(spec, form, values)
    if not out:
        return out
    gates = [g for g in (spec.gate, form.gate, *(spec.gates.get(v) for v in values.values())) if g]
    min_ptx = max([g.min_ptx for g in gates] + [(6, 0)])
    min_sm = max([g.min_sm or 0 for g in gates] + [30])
    only = set().union(*[set(g.only_targets) for g in gates if g.only_targets]) if any(
        g.only_targets for g in gates) else None
    below = [g for g in gates if g.below_sm]
    ok = [t for t in TARGETS if _sm(t) >= min_sm and (only is None or t in only)
          and not any(_sm(t) >= g.below_sm for g in below)]
    extra = []
    # the corner of the gates: the oldest allowed target at the oldest version it allows
    corner = next((t for t in ok if _sm(t) >= 75 and [v for v in versions_for(t) if v >= min_ptx]), None)
    if corner is not None:
        extra.append((corner, min(v for v in versions_for(corner) if v >= min_ptx)))
    for t in SWEEP:
        if t in ok:
            extra.append((t, versions_for(t)[-1]))
    return list(dict.fromkeys(out + extra))


def _base_placements(spec: InstructionSpec, form: Form, values: dict[str, str]):
    """(target, version) pairs for a well-formed instance: one its gates allow (the newest
    target when they ask for it), and the ones just below each gate."""
    gates = [g for g in (spec.gate, form.gate, *(spec.gates.get(v) for v in values.values())) if g]
    min_ptx = max([g.min_ptx for g in gates] + [(6, 0)])
    min_sm = max([g.min_sm or 0 for g in gates] + [30])
    only = set().union(*[set(g.only_targets) for g in gates if g.only_targets]) if any(
        g.only_targets for g in gates) else None
    below = [g for g in gates if g.below_sm]
    ok = [t for t in TARGETS if _sm(t) >= min_sm and (only is None or t in only)
          and not any(_sm(t) >= g.below_sm for g in below)]
    out = []
    if ok:
        target = DEFAULT[0] if DEFAULT[0] in ok else ok[-1]
        vs = [v for v in versions_for(target) if v >= min_ptx]
        if vs:
            out.append((target, DEFAULT[1] if DEFAULT[1] in vs else vs[-1]))
        # just below the version gate
        lower = [v for v in versions_for(target) if v < min_ptx]
        if lower:
            out.append((target, lower[-1]))
    # just below the target gate
    lower_targets = [t for t in TARGETS if 30 <= _sm(t) < min_sm]
    if lower_targets:
        t = lower_targets[-1]
        vs = [v for v in versions_for(t) if v >= min_ptx] or list(versions_for(t))
        if vs:
            out.append((t, vs[-1]))
    for g in below:
        t = next((t for t in TARGETS if _sm(t) >= g.below_sm), None)
        if t is not None:
            vs = list(versions_for(t))
            out.append((t, vs[-1]))
    return out


def _spellings(spec: InstructionSpec, form: Form, rng: random.Random) -> list[dict[str, str]]:
    """Slot values of a form: every combination, or a fixed sample of PER_FORM."""
    slots = spec.slots(form)
    choices = []
    for s in slots:
        vals = sorted(s.values)
        choices.append(vals if s.required else [None] + vals)
    total = 1
    for c in choices:
        total *= len(c)
    if total <= PER_FORM:
        combos = list(itertools.product(*choices))
    else:
        combos = {tuple(rng.choice(c) for c in choices) for _ in range(PER_FORM * 3)}
        combos = sorted(combos, key=str)[:PER_FORM]
        # every value of every slot at least once
        for i, c in enumerate(choices):
            for v in c:
                if not any(combo[i] == v for combo in combos):
                    pick = list(rng.choice(combos))
                    pick[i] = v
                    combos.append(tuple(pick))
    out = []
    for combo in combos:
        out.append({s.group: v for s, v in zip(slots, combo) if v is not None})
    return out


def opcode_of(spec: InstructionSpec, values: dict[str, str]) -> str:
    """The opcode with its modifiers in the record's canonical group order."""
    parts = [spec.name]
    for g in spec.groups:
        if g.name in values:
            parts.append(values[g.name])
    return "".join([parts[0]] + parts[1:])


def _holder(t: str) -> str:
    return _HOLDER.get(t, t if t in TYPES and TYPES[t].register else f".b{TYPES[t].bits}")


def _width_class(name: str) -> str | None:
    """The register a width class `intN`/`rawN` of an operand spec is spelled with."""
    for prefix, kind in (("int", ".u"), ("raw", ".b")):
        if name.startswith(prefix) and name[len(prefix):].isdigit():
            return kind + name[len(prefix):]
    return None


def _size(spec, role, values: dict[str, str]) -> int:
    """The element count of a vector operand: a number, a `.vN` slot, or the smallest size a
    `sizes` table of the record allows for the values written."""
    if role.count.isdigit():
        return int(role.count)
    if role.count in spec.sizes:
        group, table = spec.sizes[role.count][:2]
        return min(table.get(values.get(group, ""), (1,)) or (1,))
    return int((values.get(role.count) or ".v2")[2:])


def _operand(k, role, values: dict[str, str], spec, lists: int = 0, independent: bool = False) -> str:
    kinds = role.kinds
    t = None
    if role.type:
        first = role.type.split("|")[0]
        t = first if first.startswith(".") else (f".{first}" if first[0] == "b" and first[1:].isdigit()
                                                else _width_class(first) or values.get(first))
    if kinds & _HANDLE_KINDS:
        handle = "tex_t" if "tex" in kinds else "surf_u"
        if role.count is None:
            return f"[{handle}]"
        n = _size(spec, role, values)
        table = spec.sizes.get(role.count, ())
        first = table[2].get(values.get(table[0], "")) if len(table) > 2 else None
        regs = [k.reg(_width_class(first) if first and i == 0 else _holder(t) if t in TYPES else ".b32")
                for i in range(n)]
        coords = "{" + ", ".join(regs) + "}"
        sampler = "samp_s, " if independent and "tex" in kinds else ""
        return f"[{handle}, {sampler}{coords}]"
    if "params" in kinds:
        return f"({k.reg('.b32')})"
    if "func" in kinds:
        return _CALLEES[lists]
    if "label" in kinds and t == ".callprototype":
        k.declare(f"proto_{lists}: .callprototype {_PROTOTYPES[lists]};")
        return f"proto_{lists}"
    if "label" in kinds and t == ".branchtargets":
        k.declare("tlist: .branchtargets L_target;")
        return "tlist"
    if "vec" in kinds and role.count:
        n = _size(spec, role, values)
        return "{" + ", ".join(k.reg(_holder(t) if t in TYPES else ".b32") for _ in range(n)) + "}"
    if t == ".pred" and ("pred" in kinds or "npred" in kinds):
        return k.predicate()
    if "reg" in kinds and t is not None and t in TYPES:
        return k.reg(_holder(t))
    if "pred" in kinds or "npred" in kinds:
        return k.predicate()
    if "reg" in kinds:
        return k.reg(".b32")
    if "vec" in kinds:
        n = int(role.count) if role.count and role.count.isdigit() else int(
            (values.get(role.count or "vec") or ".v2")[2:])
        return "{" + ", ".join(k.reg(_holder(t) if t in TYPES else ".b32") for _ in range(n)) + "}"
    if "imm" in kinds:
        return _IMMEDIATE.get(TYPES[t].kind if t in TYPES else "", "1")
    if "addr" in kinds:
        # an address held in a register of a type (tcgen05's tensor memory addresses)
        return f"[{k.reg(_holder(t))}]" if t in TYPES else "[%addr]"
    if "sreg" in kinds:
        return "%tid.x"
    if "label" in kinds:
        return "L_target"
    return "0"


def _instance(spec, form, values, k, independent: bool = False) -> tuple[str, list[str]]:
    roles = [role for _, role, optional in spec.operand_roles(form) if not optional]
    lists = sum("params" in role.kinds for role in roles)
    ops = [_operand(k, role, values, spec, lists, independent) for role in roles]
    if any("label" in role.kinds for role in roles):
        k.tail.append("L_target:")        # what a label operand (or a branch-target list) names
    return opcode_of(spec, values), ops


def _context(spec, form) -> dict:
    """Module-scope declarations a form's cases need (the callees of `call`, the texture and
    surface handles)."""
    kinds = set().union(*[role.kinds for _, role, _ in spec.operand_roles(form)] or [set()])
    if "func" in kinds:
        return {"prelude": CALL_PRELUDE}
    return {"prelude": TEXTURE_PRELUDE} if kinds & _HANDLE_KINDS else {}


def _samples(spec, form) -> bool:
    """Whether a form reads a texture through a sampler (then it is also tried under
    `texmode_independent`, where the address names the sampler)."""
    return any("tex" in role.kinds and role.count for _, role, _ in spec.operand_roles(form))


def _independent(version, target) -> dict:
    return {"prelude": INDEPENDENT_PRELUDE, "header": (
        f".version {version[0]}.{version[1]}", f".target {target}, texmode_independent", ".address_size 64")}


def _text(opcode: str, ops: list[str]) -> str:
    return f"{opcode} {', '.join(ops)};" if ops else f"{opcode};"


def _forms_family(spec: InstructionSpec):
    def gen():
        rng = random.Random(f"isa.{spec.name}.forms")
        for form in spec.forms:
            for values in _spellings(spec, form, rng):
                placements = _placements(spec, form, values)
                for target, version in placements:
                    k = Kernel()
                    opcode, ops = _instance(spec, form, values, k)
                    yield version, target, k, _text(opcode, ops), {"form": spelled(spec, form),
                                                                      **_context(spec, form)}
                if placements and _samples(spec, form):
                    target, version = placements[0]
                    k = Kernel()
                    opcode, ops = _instance(spec, form, values, k, independent=True)
                    yield version, target, k, _text(opcode, ops), {"form": spelled(spec, form),
                                                                      "texmode": "independent",
                                                                      **_independent(version, target)}
    gen.__doc__ = f"every form of {spec.name} over its slot values and gates"
    return gen


def _mutations_family(spec: InstructionSpec):
    def gen():
        rng = random.Random(f"isa.{spec.name}.mutations")
        for form in spec.forms:
            slots = spec.slots(form)
            named = {s.group for s in slots}
            for values in _spellings(spec, form, rng)[:MUTATIONS_PER_FORM // 6 + 1]:
                placements = _placements(spec, form, values)
                if not placements:
                    continue
                target, version = placements[0]
                muts = []
                required = [s for s in slots if s.required]
                if required:
                    s = rng.choice(required)
                    muts.append(("drop", {g: v for g, v in values.items() if g != s.group}, None))
                for s in slots:
                    other = sorted(set(spec.group(s.group).values) - s.values)
                    if other:
                        muts.append(("value", {**values, s.group: rng.choice(other)}, None))
                        break
                extra = [g for g in spec.groups if g.name not in named]
                if extra:
                    g = rng.choice(extra)
                    muts.append(("extra", {**values, g.name: rng.choice(g.values)}, None))
                muts.append(("unknown", values, ".foo"))
                if values:
                    g = rng.choice(sorted(values))
                    muts.append(("repeat", values, values[g]))
                muts.append(("operand-missing", values, None))
                muts.append(("operand-extra", values, None))
                muts.append(("register-type", values, None))
                muts.append(("immediate-destination", values, None))
                for kind, vals, arg in muts:
                    k = Kernel()
                    opcode, ops = _instance(spec, form, vals, k)
                    if kind in ("unknown", "repeat"):
                        opcode += arg
                    elif kind == "operand-missing":
                        if not ops:
                            continue
                        ops = ops[:-1]
                    elif kind == "operand-extra":
                        ops = ops + [k.reg(".b32")]
                    elif kind == "register-type":
                        regs = [i for i, o in enumerate(ops) if o.startswith("%") and not o.startswith("%p")
                                and o != "%addr"]
                        if not regs:
                            continue
                        i = rng.choice(regs)
                        cls = "." + ops[i][1:].rsplit("_", 1)[0]
                        swap = {".f32": ".b64", ".b32": ".b64", ".u32": ".f64", ".s32": ".b16",
                                ".f64": ".f32", ".b64": ".b32", ".b16": ".f32", ".f16": ".b32",
                                ".f16x2": ".f32", ".u64": ".b16", ".s64": ".f32"}.get(cls, ".f64")
                        ops[i] = k.reg(swap)
                    elif kind == "immediate-destination":
                        if not ops or not any(r.write for _, r, _ in spec.operand_roles(form)):
                            continue
                        ops[0] = "1"
                    yield version, target, k, _text(opcode, ops), {"mutation": kind,
                                                                     "form": spelled(spec, form),
                                                                     **_context(spec, form)}
    gen.__doc__ = f"near misses of every form of {spec.name}"
    return gen


def _swappable(role) -> bool:
    """Whether an operand is swapped through the register classes (not an address, label,
    function, parameter list or sized vector)."""
    return not role.kinds & {"addr", "label", "func", "params", "tex", "surf"} and not ("vec" in role.kinds and role.count)


def _vector_elements(spec: InstructionSpec, role) -> int | None:
    """Whether a vector operand's elements are swapped (VECTOR_ELEMENTS): its count's slot."""
    if not spec.name.startswith(VECTOR_ELEMENTS) or "vec" not in role.kinds or not role.count:
        return None
    return None if role.count.isdigit() else role.count


def _operands_family(spec: InstructionSpec):
    def gen():
        rng = random.Random(f"isa.{spec.name}.operands")
        forms = list(spec.forms)
        if len(forms) > OPERAND_FORMS:   # wgmma and mma have hundreds of forms of one operand shape
            # a sample of those with an operand to swap (most of mma's take vectors only)
            forms = [f for f in forms if any(_swappable(r) for _, r, optional in spec.operand_roles(f)
                                             if not optional)]
            forms = random.Random(f"isa.{spec.name}.operand-forms").sample(forms, min(OPERAND_FORMS, len(forms)))
        for form in forms:
            roles = [r for _, r, optional in spec.operand_roles(form) if not optional]
            for values in _spellings(spec, form, rng)[:OPERAND_SPELLINGS]:
                placements = _placements(spec, form, values)
                if not placements:
                    continue
                target, version = placements[0]
                for i, role in enumerate(roles):
                    if not _swappable(role):
                        continue
                    for cls in REGISTER_CLASSES + ("imm", "sreg"):
                        k = Kernel()
                        opcode, ops = _instance(spec, form, values, k)
                        if cls == "imm":
                            ops[i] = "1"
                        elif cls == "sreg":
                            ops[i] = "%tid.x"
                        elif cls == ".pred":
                            ops[i] = k.predicate()
                        else:
                            ops[i] = k.reg(cls)
                        yield version, target, k, _text(opcode, ops), {"operand": i, "as": cls,
                                                                         "form": spelled(spec, form),
                                                                         **_context(spec, form)}
        # the elements of vector operands (VECTOR_ELEMENTS), on every form that has one
        for form in spec.forms:
            roles = [r for _, r, optional in spec.operand_roles(form) if not optional]
            if not any(_vector_elements(spec, r) for r in roles):
                continue
            for values in _spellings(spec, form, rng)[:OPERAND_SPELLINGS]:
                placements = _placements(spec, form, values)
                if not placements:
                    continue
                target, version = placements[0]
                for i, role in enumerate(roles):
                    slot = _vector_elements(spec, role)
                    if slot is None or slot not in values:
                        continue
                    for cls in REGISTER_CLASSES:
                        k = Kernel()
                        opcode, ops = _instance(spec, form, values, k)
                        elements = [k.predicate() if cls == ".pred" else k.reg(cls)
                                    for _ in range(int(values[slot][2:]))]
                        ops[i] = "{" + ", ".join(elements) + "}"
                        yield version, target, k, _text(opcode, ops), {"operand": i, "elements": cls,
                                                                         "form": spelled(spec, form),
                                                                         **_context(spec, form)}
    gen.__doc__ = f"every operand of every form of {spec.name} as each register class"
    return gen


def families(kernel, targets, versions) -> dict:
    """name -> generator of every family, given generate.py's Kernel, TARGETS, versions_for."""
    global Kernel, TARGETS, versions_for
    Kernel, TARGETS, versions_for = kernel, targets, versions
    out = {}
    for spec in records():
        out[f"isa.{spec.name}.forms"] = _forms_family(spec)
        out[f"isa.{spec.name}.mutations"] = _mutations_family(spec)
        out[f"isa.{spec.name}.operands"] = _operands_family(spec)
    return out


__all__ = ["families", "records", "opcode_of"]

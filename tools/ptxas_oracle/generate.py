"""Complete PTX modules that exercise `ld`, `ld.global.nc` and `wmma.load`, for differential testing.

Every case is one module: `.version`, `.target`, `.address_size 64`, module-scope variables, one
kernel whose body holds the instruction under test (`Case.focus`). The vocabulary comes from
ptxld's spec tables (`spec.ld.GROUPS/TYPES/GATES`, `spec.targets`, `spec.wmma`); this file only
decides how to combine it. Families:

* exhaustive products: `ld.types` (state space x type x vector x address form), `ld.regclass`
  (type x destination register class), `ld.pairs` (every value pair of two qualifier groups),
  `ld.address` (address spellings x state space), `ld.spelling` (whitespace, comments, line
  breaks), `wmma.legal` / `wmma.grid` (shape x matrix x type x layout x state space x stride),
  `wmma.fragments` (fragment x register class / register count), `ld.param` (return values,
  predicates, `::entry/::func`), `ld.func` (loads of device-function parameters);
* `ld.gates`: each qualifier on every target at every PTX version where some gate opens (and the
  one before);
* seeded samples of larger products: `ld.grammar` (random qualifier sets shaped like the seeds'
  syntax forms, any target/version);
* mutations of well-formed loads: `ld.mutation` and `wmma.mutation` (drop/duplicate/reorder/
  misspell a qualifier, wrong register class/width/arity, sinks, immediate and odd addresses,
  cache-policy operand without hint and vice versa, `.unified`, guards, ...), `ld.operands`
  (destination elements: mixed classes, repeats, undeclared, special registers, immediates) and
  `ld.multi` (two or three mutated loads in one kernel);
* `ld.symbols`: addresses naming a function, a label, a float/predicate register; destinations of
  non-register types; opcode near misses; a device function reading its return parameter;
  wmma strides around the alignment rule;
* `header` / `header.mutation`: `.version` too old for `.target`, PTX versions newer than ptxas
  supports; unknown versions/targets, platform options, `.address_size 32`, misordered or
  repeated header directives.

Targets span sm_20 ... sm_121f; ptxas 13.0 generates code only from sm_75, so older `.target`s are
assembled with `-arch=sm_75` (ptxas still applies the older target's rules). PTX 6.0 ... 9.0.
Deterministic: sampled families draw from `random.Random(<family name>)`.
"""
from __future__ import annotations

import hashlib
import os
import random
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Callable, Iterator

from ptxld.spec import ld as LD
from ptxld.spec.types import kind_bits

# The types the generator draws from (ld types, and register classes for destinations), with
# the (class, bits) that type checking compares.
TYPE_CLASSES = {t: kind_bits(t) for t in (
    ".b8", ".b16", ".b32", ".b64", ".b128", ".u8", ".u16", ".u32", ".u64", ".s8", ".s16", ".s32",
    ".s64", ".f16", ".f16x2", ".f32", ".f64", ".bf16", ".bf16x2", ".tf32", ".pred")}
GROUP_OF = {q: g for g, qs in LD.GROUPS.items() for q in qs}
from ptxld.spec import targets as T
from ptxld.spec import wmma as W

# ---------------------------------------------------------------------------------------------
# Targets and versions

FIRST_VERSION = (6, 0)
VERSIONS = tuple(v for v in T.PTX_VERSIONS if FIRST_VERSION <= v <= T.LATEST_PTAS_VERSION)
NEWER_VERSIONS = tuple(v for v in T.PTX_VERSIONS if v > T.LATEST_PTAS_VERSION)
OLDEST_TARGET = 20          # sm_1x are out of scope (map_f64_to_f32 era)
PTXAS_MIN_ARCH = 75         # ptxas 13.0: "Value 'sm_72' is not defined for option 'gpu-name'"


def _target_order(name: str) -> tuple[int, str]:
    t = T.parse_target(name)
    return (t.number, t.suffix)


TARGETS: tuple[str, ...] = tuple(sorted(
    (t for t, v in T.TARGET_INTRODUCED.items()
     if v <= T.LATEST_PTAS_VERSION and T.parse_target(t).number >= OLDEST_TARGET),
    key=_target_order))
MODERN_TARGETS = tuple(t for t in TARGETS if T.parse_target(t).number >= 90)


def sm(target: str) -> int:
    return T.parse_target(target).number


def ptxas_arch(target: str) -> str:
    """The `-arch` ptxas 13.0 assembles a `.target` with."""
    if sm(target) < PTXAS_MIN_ARCH:
        return f"sm_{PTXAS_MIN_ARCH}"
    return T.RENAMED_FROM_9_0.get(target, target)


def versions_for(target: str) -> tuple[tuple[int, int], ...]:
    intro = T.TARGET_INTRODUCED[target]
    return tuple(v for v in VERSIONS if v >= intro)


def _previous(v: tuple[int, int]) -> tuple[int, int] | None:
    i = T.PTX_VERSIONS.index(v)
    return T.PTX_VERSIONS[i - 1] if i else None


def _boundary_versions() -> tuple[tuple[int, int], ...]:
    """Every PTX version at which some load-family gate opens, and the one before it."""
    mins = {g.min_ptx for g in LD.GATES.values()}
    mins |= {W.ALIGNED_FROM_PTX, W.SHARED_CTA_GATE.min_ptx}
    mins |= {f.gate.min_ptx for f in W.legal_combinations()}
    mins |= set(T.TARGETS_ADDED)
    out = {VERSIONS[0], VERSIONS[-1]}
    for v in mins:
        for x in (v, _previous(v)):
            if x in VERSIONS:
                out.add(x)
    return tuple(sorted(out))


BOUNDARY_VERSIONS = _boundary_versions()

# ---------------------------------------------------------------------------------------------
# Vocabulary derived from the spec tables

# ptxas has no `.reg .bf16/.bf16x2/.tf32` ("Parsing error near '.bf16'"); every other TYPES entry
# is a register class.
_NOT_REGISTER_KINDS = {"bf", "bf16x2", "tf"}
REG_CLASSES = tuple(t for t, (kind, _) in TYPE_CLASSES.items() if kind not in _NOT_REGISTER_KINDS)
LD_TYPES = LD.GROUPS["type"]
NON_LD_TYPES = tuple(t for t in TYPE_CLASSES if t not in LD_TYPES)
LD_SPACES: tuple[str | None, ...] = (None,) + LD.GROUPS["space"]   # None: generic addressing
GROUP_ORDER = tuple(LD.GROUPS)

# The variable each state space's "named variable" address uses (declared in every module).
VARIABLE_OF = {".global": "gvar", ".shared": "svar", ".const": "cvar", ".local": "lvar",
               ".param": "pb", None: "gvar"}
STANDARD_PRELUDE = (
    ".global .align 16 .b8 gvar[1024];",
    ".shared .align 16 .b8 svar[1024];",
    ".const .align 16 .b8 cvar[1024];",
)
UNIFIED_PRELUDE = STANDARD_PRELUDE + (".global .attribute(.unified(19,95)) .align 16 .b8 ugvar[1024];",)
RETURN_PRELUDE = STANDARD_PRELUDE + (
    ".func (.param .b32 rv) fret()",
    "{",
    "\tst.param.b32 [rv], 1;",
    "\tret;",
    "}",
)
KERNEL_PARAMS = ("\t.param .u64 p,", "\t.param .align 16 .b8 pb[64]")


def base_space(space: str | None) -> str | None:
    return LD.SPACE_BASE[space] if space else None


# ---------------------------------------------------------------------------------------------
# Cases


@dataclass(frozen=True)
class Case:
    family: str
    index: int
    version: tuple[int, int]
    target: str
    body: tuple[str, ...]                      # kernel body lines (declarations + instructions)
    focus: str                                 # the instruction under test, as written
    prelude: tuple[str, ...] = STANDARD_PRELUDE
    flags: tuple[str, ...] = ()                # extra ptxas options (`-c` for .unified variables)
    tags: tuple[tuple[str, str], ...] = ()     # what the case varies, for grouping reports
    header: tuple[str, ...] = ()               # directives replacing the standard three

    @property
    def id(self) -> str:
        return f"{self.family}/{self.index:05d}"

    @property
    def arch(self) -> str:
        return ptxas_arch(self.target)

    def head_lines(self) -> list[str]:
        """Everything before the kernel, one physical line each: header and module-scope
        declarations."""
        header = self.header or (f".version {self.version[0]}.{self.version[1]}",
                                 f".target {self.target}", ".address_size 64")
        return _physical([*header, "", *self.prelude, ""])

    def kernel_lines(self, name: str = "k") -> list[str]:
        """The kernel, one physical line each (a statement may span several)."""
        return _physical([f".visible .entry {name}(", *KERNEL_PARAMS, ")", "{", *self.body,
                          "\tret;", "}"])

    @property
    def text(self) -> str:
        return "\n".join(self.head_lines() + self.kernel_lines()) + "\n"

    @property
    def batch_key(self) -> tuple:
        """Cases with equal keys can share one module (same header, declarations and options)."""
        return (self.version, self.target, self.header, self.prelude, self.flags)

    @property
    def focus_line(self) -> int:
        """1-based line of the instruction under test in `text`."""
        lines = self.head_lines() + self.kernel_lines()
        first = self.focus.split("\n")[0].strip()
        for i in range(len(lines) - 1, -1, -1):
            if lines[i].strip() == first:
                return i + 1
        return 0

    def key(self, ptxas_version: str) -> str:
        h = hashlib.sha256()
        for part in (self.arch, " ".join(self.flags), self.text, ptxas_version):
            h.update(part.encode())
            h.update(b"\0")
        return h.hexdigest()[:24]

    def tag(self, name: str, default: str = "") -> str:
        return dict(self.tags).get(name, default)


def _physical(lines: list[str]) -> list[str]:
    return "\n".join(lines).split("\n")


class Kernel:
    """Builds a kernel body: registers are declared by class as the instructions ask for them."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.decls: list[str] = []
        self.setup: list[str] = []
        self.lines: list[str] = []
        self.tail: list[str] = []     # lines after the instruction under test

    def reg(self, cls: str) -> str:
        n = self.counts.get(cls, 0)
        self.counts[cls] = n + 1
        return f"%{cls[1:]}_{n}"

    def regs(self, cls: str, n: int) -> list[str]:
        return [self.reg(cls) for _ in range(n)]

    def declare(self, line: str) -> None:
        if line not in self.decls:
            self.decls.append(line)

    def variable(self, space: str | None) -> str:
        base = base_space(space)
        if base == ".local":
            self.declare(".local .align 16 .b8 lvar[1024];")
        return VARIABLE_OF[base]

    def policy(self) -> str:
        r = self.reg(".b64")
        self.setup.append(f"mov.b64 {r}, 0;")
        return r

    def predicate(self) -> str:
        p = self.reg(".pred")
        self.setup.append(f"setp.ne.u64 {p}, %addr, 0;")
        return p

    def body(self) -> tuple[str, ...]:
        regs = [f".reg {c} %{c[1:]}_<{n}>;" for c, n in self.counts.items()]
        out = [".reg .b64 %addr;", *regs, *self.decls, "ld.param.u64 %addr, [p];",
               *self.setup, *self.lines, *self.tail]
        return tuple("\t" + line for line in out)


@dataclass
class Load:
    """An instruction under test, field by field, so mutations can edit it."""
    opcode: str                     # "ld" or "wmma.load"
    quals: list[str]                # as written, in order
    dest: list[str]                 # registers (or `_`)
    vector: bool                    # dest written as a brace list
    address: str
    extra: list[str] = field(default_factory=list)   # cache-policy / stride operands
    guard: str = ""

    def text(self) -> str:
        dest = "{" + ", ".join(self.dest) + "}" if self.vector else self.dest[0]
        ops = ", ".join([dest, self.address, *self.extra])
        guard = f"@{self.guard} " if self.guard else ""
        return f"{guard}{self.opcode}{''.join(self.quals)} {ops};"


def make_case(family: str, index: int, version, target, k: Kernel, load: Load | str, *,
              prelude=STANDARD_PRELUDE, flags=(), in_prelude=False, header=(), **tags) -> Case:
    """The case whose instruction under test is `load`, placed in the kernel body (or already
    part of `prelude` when `in_prelude`)."""
    focus = load if isinstance(load, str) else load.text()
    if not in_prelude:
        k.lines.append(focus)
    return Case(family, index, tuple(version), target, k.body(), focus, prelude, tuple(flags),
                tuple(sorted((a, str(b)) for a, b in tags.items())), tuple(header))


# ---------------------------------------------------------------------------------------------
# Well-formed ld building blocks


def ordered(quals: dict[str, str]) -> list[str]:
    """Qualifiers in the seeds' template order (the order of `spec.ld.GROUPS`)."""
    return [quals[g] for g in GROUP_ORDER if g in quals]


def plain_quals(type_: str, space: str | None = None, nc: bool = False,
                vec: str | None = None) -> dict[str, str]:
    """A qualifier set of just a type and optionally a space, `.nc` and a vector."""
    q = {"type": type_}
    if space:
        q["space"] = space
    if nc:
        q["nc"] = ".nc"
    if vec:
        q["vec"] = vec
    return q


def complete(quals: dict[str, str]) -> dict[str, str]:
    """The natural well-formed companion qualifiers of a partial set: a memory order gets a scope
    and vice versa, `.mmio` gets `.relaxed.sys`, an L2 eviction priority a 256-bit vector, ..."""
    q = dict(quals)
    q.setdefault("type", ".u32")
    if "mmio" in q:
        q.setdefault("sem", ".relaxed")
        q.setdefault("scope", ".sys")
    if q.get("sem") in (".relaxed", ".acquire"):
        q.setdefault("scope", ".gpu")
    if "scope" in q:
        q.setdefault("sem", ".relaxed")
    if "l2_evict" in q and "vec" not in q:
        q["vec"] = ".v4" if LD.type_bits(q["type"]) == 64 else ".v8"
        if LD.type_bits(q["type"]) not in (32, 64):
            q["type"] = ".b32"
    return q


def natural_address(k: Kernel, space: str | None) -> str:
    """A register address, except for `.param` where ld.param names the parameter."""
    if base_space(space) == ".param":
        return f"[{k.variable(space)}]"
    return "[%addr]"


ADDRESS_FORMS = ("reg", "reg+off", "reg+-off", "var", "var+off")


def address(k: Kernel, form: str, space: str | None) -> str:
    if form == "reg":
        return "[%addr]"
    if form == "reg+off":
        return "[%addr+16]"
    if form == "reg+-off":
        return "[%addr+-16]"
    if form == "var":
        return f"[{k.variable(space)}]"
    if form == "var+off":
        return f"[{k.variable(space)}+16]"
    raise ValueError(form)


def build_ld(k: Kernel, quals: dict[str, str], *, addr: str | None = None,
             dest_class: str | None = None) -> Load:
    t = quals["type"]
    n = LD.VECTOR_LENGTH.get(quals.get("vec", ""), 0)
    cls = dest_class or t
    dest = k.regs(cls, max(n, 1))
    extra = [k.policy()] if "cache_hint" in quals else []
    return Load("ld", ordered(quals), dest, n > 0, addr or natural_address(k, quals.get("space")),
                extra)


def _pick_version(rng: random.Random, target: str, latest_bias: float = 0.4):
    vs = versions_for(target)
    return vs[-1] if rng.random() < latest_bias else rng.choice(vs)


def _pick_target(rng: random.Random, modern_bias: float = 0.5) -> str:
    return rng.choice(MODERN_TARGETS) if rng.random() < modern_bias else rng.choice(TARGETS)


def random_quals(rng: random.Random, *, nc: bool | None = None) -> dict[str, str]:
    """A qualifier set shaped like one of the seeds' syntax forms, with optional groups drawn."""
    G = LD.GROUPS
    q: dict[str, str] = {"type": rng.choice(LD_TYPES)}
    if nc is None:
        nc = rng.random() < 0.2
    if nc:
        q["space"] = ".global"
        q["nc"] = ".nc"
        if rng.random() < 0.25:
            q["cop"] = rng.choice(LD.NC_COPS)
    else:
        space = rng.choice(LD_SPACES)
        if space:
            q["space"] = space
        form = rng.choice(["weak", "weak", "volatile", "relaxed", "acquire", "mmio"])
        if form == "weak" and rng.random() < 0.3:
            q["sem"] = ".weak"
        elif form in ("relaxed", "acquire"):
            q["sem"] = "." + form
            q["scope"] = rng.choice(G["scope"])
        elif form == "volatile":
            q["sem"] = ".volatile"
        elif form == "mmio":
            q.update(mmio=".mmio", sem=".relaxed", scope=".sys")
        if form == "weak" and rng.random() < 0.25:
            q["cop"] = rng.choice(G["cop"])
    if rng.random() < 0.35:
        q["vec"] = rng.choice(G["vec"])
    if "cop" not in q and rng.random() < 0.2:
        q["l1_evict"] = rng.choice(G["l1_evict"])
    if rng.random() < (0.5 if LD.type_bits(q["type"]) * LD.VECTOR_LENGTH.get(q.get("vec", ""), 1) == 256
                       else 0.08):
        q["l2_evict"] = rng.choice(G["l2_evict"])
    if rng.random() < 0.15:
        q["cache_hint"] = ".L2::cache_hint"
    if rng.random() < 0.15:
        q["prefetch"] = rng.choice(G["prefetch"])
    return q


# ---------------------------------------------------------------------------------------------
# Families. Each yields (version, target, Kernel, Load|str, extra make_case kwargs).

FAMILIES: dict[str, Callable[[], Iterator]] = {}
# Sampled families draw from Random(<family> + SEED). Another SEED gives a fresh sample of the same
# products (a hold-out set: PTXAS_ORACLE_SEED=holdout1 with PTXAS_ORACLE_VERDICTS=/tmp/h.jsonl.gz).
SEED = os.environ.get("PTXAS_ORACLE_SEED", "")


def _rng(family_name: str) -> random.Random:
    return random.Random(family_name + SEED)


def family(name: str):
    def register(fn):
        FAMILIES[name] = fn
        return fn
    return register


@family("ld.types")
def _types():
    """State space (and .nc) x type x vector, natural registers; every address form on sm_100,
    register/param addresses on sm_90 (where 256-bit loads are gated)."""
    spaces = [(s, False) for s in LD_SPACES] + [(".global", True)]
    for target, forms in (("sm_100", ADDRESS_FORMS), ("sm_90", (None,))):
        for space, nc in spaces:
            for t in LD_TYPES:
                for vec in (None,) + LD.GROUPS["vec"]:
                    for form in forms:
                        q = plain_quals(t, space, nc, vec)
                        k = Kernel()
                        addr = address(k, form, space) if form else None
                        yield (9, 0), target, k, build_ld(k, q, addr=addr), dict(
                            space=space or "generic", nc=nc, type=t, vec=vec, address=form or "natural")


@family("ld.regclass")
def _regclass():
    """Type x destination register class (relaxed type-checking rules), scalar and .v2."""
    shapes = [(".global", False, None), (".shared", False, None), (None, False, None),
              (".global", True, None), (".global", False, ".v2"), (".global", False, ".v4")]
    for space, nc, vec in shapes:
        for t in LD_TYPES:
            for cls in REG_CLASSES:
                q = plain_quals(t, space, nc, vec)
                k = Kernel()
                yield (9, 0), "sm_90", k, build_ld(k, q, dest_class=cls), dict(
                    space=space or "generic", nc=nc, type=t, vec=vec, reg=cls)


# Address operand spellings: offsets in every base and sign, expressions, out-of-range and odd
# shapes. `{var}` is the state space's variable, `{r64}`/`{r32}` fresh registers.
ADDRESS_SPELLINGS = (
    "[%addr+0]", "[%addr+0x10]", "[%addr+0X10]", "[%addr+-0x10]", "[%addr+010]", "[%addr+0b1000]",
    "[%addr+2147483647]", "[%addr+2147483648]", "[%addr+-2147483648]", "[%addr+4294967296]",
    "[%addr+18446744073709551615]", "[%addr + 16]", "[ %addr ]", "[%addr+(4*4)]", "[%addr+16U]",
    "[%addr+1.0]", "[{var}+-4]", "[{var}+4096]", "[{var}-4]", "[4+{var}]", "[{var}+{r64}]",
    "[{r64}+{r64}]", "[-8]", "[0x100]", "[{var}+0x10]", "[{var}+16+16]", "[{r32}+8]",
    "[%addr]+8", "%addr", "[%addr]]", "[[%addr]]", "[%addr+8]", "[{var}]",
)


@family("ld.address")
def _address():
    """Every address spelling in every state space (and `.nc`), on sm_90 / PTX 9.0."""
    spaces = [(s, False) for s in LD_SPACES] + [(".global", True)]
    for space, nc in spaces:
        for spelling in ADDRESS_SPELLINGS:
            q = plain_quals(".u32", space, nc)
            k = Kernel()
            addr = (spelling.replace("{var}", k.variable(space))
                    .replace("{r64}", k.reg(".b64") if "{r64}" in spelling else "")
                    .replace("{r32}", k.reg(".b32") if "{r32}" in spelling else ""))
            yield (9, 0), "sm_90", k, build_ld(k, q, addr=addr), dict(
                space=space or "generic", nc=nc, address=spelling)


def _gate_instances() -> list[tuple[str, dict[str, str]]]:
    """One partial qualifier set per value of every group, plus the type/vector gates."""
    out: list[tuple[str, dict[str, str]]] = [("generic", {})]
    for g, values in LD.GROUPS.items():
        if g == "type":
            continue
        for v in values:
            out.append((v, {g: v}))
    for t in LD_TYPES:
        if LD.type_bits(t) in (64, 128) or t in (".u32", ".f32"):
            out.append((t, {"type": t}))
    out.append((".b128.sys", {"type": ".b128", "sem": ".relaxed", "scope": ".sys"}))
    out.append((".mmio.b128", {"type": ".b128", "mmio": ".mmio"}))
    for t in LD_TYPES:
        bits = LD.type_bits(t)
        if bits in (32, 64):
            out.append((f"256-bit{t}", {"type": t, "vec": ".v8" if bits == 32 else ".v4"}))
    out.append((".nc.L2::256B", {"nc": ".nc", "prefetch": ".L2::256B"}))
    out.append((".nc.L1::evict_last", {"nc": ".nc", "l1_evict": ".L1::evict_last"}))
    out.append((".nc.L2::cache_hint", {"nc": ".nc", "cache_hint": ".L2::cache_hint"}))
    out.append((".nc.b128", {"nc": ".nc", "type": ".b128"}))
    out.append((".nc.256-bit", {"nc": ".nc", "type": ".u32", "vec": ".v8"}))
    return out


@family("ld.gates")
def _gates():
    """Each qualifier (completed to a natural load) on every target, at every PTX version where
    some gate opens and the one before it (that the target admits)."""
    for name, partial in _gate_instances():
        q = complete(partial)
        if "space" not in q and name != "generic" and "mmio" not in q:
            q["space"] = ".global"
        if "nc" in q:
            q["space"] = ".global"
        for target in TARGETS:
            for v in BOUNDARY_VERSIONS:
                if v in versions_for(target):
                    k = Kernel()
                    yield v, target, k, build_ld(k, q), dict(feature=name)


@family("ld.pairs")
def _pairs():
    """Every value pair of every two qualifier groups (completed to a natural load; `.global`
    unless the pair names a space), on sm_100 / PTX 9.0 and sm_120 / PTX 8.7."""
    groups = list(LD.GROUPS)
    for target, v in (("sm_100", (9, 0)), ("sm_120", (8, 7))):
        for i, g1 in enumerate(groups):
            for g2 in groups[i + 1:]:
                for v1 in LD.GROUPS[g1]:
                    for v2 in LD.GROUPS[g2]:
                        q = complete({g1: v1, g2: v2})
                        if "space" not in q:
                            q["space"] = ".global"
                        k = Kernel()
                        yield v, target, k, build_ld(k, q), dict(pair=f"{g1}+{g2}", values=v1 + v2)


def _func_prelude(load: Load, params: str) -> tuple[str, ...]:
    return STANDARD_PRELUDE + (
        f".func (.param .b32 fr) fload({params})", "{",
        *(f"\t{x}" for x in (".reg .b32 %f_0;", ".reg .b64 %f_addr;", load.text(),
                             "st.param.b32 [fr], %f_0;", "ret;")),
        "}")


@family("ld.func")
def _func():
    """Loads inside a device function: its parameters through `.param`, `::func`, `::entry` and
    generic addressing, a kernel-style `.param` array parameter, and a called kernel body."""
    spaces = [s for s in LD_SPACES if base_space(s) == ".param"] + [None, ".local"]
    for target, v in (("sm_90", (9, 0)), ("sm_80", (8, 3)), ("sm_75", (7, 8))):
        for space in spaces:
            for param, params in (("fp", ".param .b32 fp"), ("fa", ".param .align 8 .b8 fa[16]"),
                                  ("fa+4", ".param .align 8 .b8 fa[16]")):
                quals = [space] if space else []
                load = Load("ld", quals + [".b32"], ["%f_0"], False, f"[{param}]")
                k = Kernel()
                r = k.reg(".b32")
                arg, decl = (("a0", ".param .b32 a0;") if param == "fp"
                             else ("a1", ".param .align 8 .b8 a1[16];"))
                k.setup += ["{", ".param .b32 r0;", decl, f"st.param.b32 [{arg}], 0;"]
                k.tail += [f"call (r0), fload, ({arg});", f"ld.param.b32 {r}, [r0];", "}"]
                yield v, target, k, load.text(), dict(
                    prelude=_func_prelude(load, params), in_prelude=True,
                    space=space or "generic", param=param)


@family("ld.grammar")
def _grammar():
    """Random qualifier sets in the seeds' syntax forms on any target / version."""
    rng = _rng("ld.grammar")
    for _ in range(3000):
        q = random_quals(rng)
        target = _pick_target(rng)
        v = _pick_version(rng, target)
        k = Kernel()
        cls = q["type"] if rng.random() < 0.85 else rng.choice(REG_CLASSES)
        space = q.get("space")
        addr = (natural_address(k, space) if rng.random() < 0.7
                else address(k, rng.choice(ADDRESS_FORMS), space))
        yield v, target, k, build_ld(k, q, addr=addr, dest_class=cls), dict(
            quals=".".join(x[1:] for x in ordered(q)))


# ---- mutations -------------------------------------------------------------------------------

def _misspell(rng: random.Random, qual: str) -> str:
    """A near miss of a qualifier that is not itself a qualifier."""
    valid = set(GROUP_OF) | {f".{x}" for x in (*W.SHAPES, *W.LAYOUTS, *W.ELEMENT_BITS, "sync",
                                                  "aligned", "a", "b", "c")}
    body = qual[1:]
    for _ in range(20):
        op = rng.choice(["swap", "drop", "upper", "double", "colon", "dot"])
        s = body
        i = rng.randrange(len(s))
        if op == "swap" and len(s) > 1:
            i = min(i, len(s) - 2)
            s = s[:i] + s[i + 1] + s[i] + s[i + 2:]
        elif op == "drop" and len(s) > 1:
            s = s[:i] + s[i + 1:]
        elif op == "upper":
            s = s.upper() if s.islower() else s.lower()
        elif op == "double":
            s = s[:i] + s[i] + s[i:]
        elif op == "colon" and "::" in s:
            s = s.replace("::", ":")
        elif op == "dot" and "::" in s:
            s = s.replace("::", ".")
        cand = "." + s
        if s and cand != qual and cand not in valid and not s.startswith("."):
            return cand
    return qual + "x"


# Spellings from neighbouring vocabularies: SASS (LDG), st/createpolicy, other vector widths.
FOREIGN_QUALIFIERS = (".wb", ".wt", ".ci", ".E", ".U", ".L2::evict_unchanged", ".L1::evict_none",
                      ".L2::32B", ".L2::512B", ".v3", ".v16", ".b256", ".u128", ".s128", ".f128",
                      ".shared::gpu", ".param::kernel", ".release", ".strong", ".global::cta")

_SAME_KIND = {}
for _c in REG_CLASSES:
    _SAME_KIND.setdefault(TYPE_CLASSES[_c][0], []).append(_c)


def _registry() -> tuple[dict[str, Callable], Callable]:
    """A name -> function table and the decorator that fills it."""
    table: dict[str, Callable] = {}

    def op(fn):
        table[fn.__name__] = fn
        return fn
    return table, op


def _mutations() -> dict[str, Callable]:
    """name -> fn(rng, k, load, quals) that edits `load` (and may return make_case kwargs)."""
    M, op = _registry()

    @op
    def drop_qualifier(rng, k, load, q):
        load.quals.pop(rng.randrange(len(load.quals)))

    @op
    def duplicate_qualifier(rng, k, load, q):
        x = rng.choice(load.quals)
        load.quals.insert(rng.randrange(len(load.quals) + 1), x)

    @op
    def reorder_qualifiers(rng, k, load, q):
        before = list(load.quals)
        for _ in range(10):
            rng.shuffle(load.quals)
            if load.quals != before or len(before) < 2:
                break

    @op
    def type_before_vector(rng, k, load, q):
        if "vec" in q:
            load.quals.remove(q["vec"])
            load.quals.append(q["vec"])
        else:
            load.quals.insert(0, load.quals.pop())

    @op
    def misspell(rng, k, load, q):
        i = rng.randrange(len(load.quals))
        load.quals[i] = _misspell(rng, load.quals[i])

    @op
    def foreign_qualifier(rng, k, load, q):
        load.quals.insert(rng.randrange(len(load.quals) + 1), rng.choice(FOREIGN_QUALIFIERS))

    @op
    def non_ld_type(rng, k, load, q):
        load.quals[load.quals.index(q["type"])] = rng.choice(NON_LD_TYPES)

    @op
    def wrong_register_class(rng, k, load, q):
        cls = rng.choice([c for c in REG_CLASSES if c != q["type"]])
        load.dest = k.regs(cls, len(load.dest))

    @op
    def other_register_width(rng, k, load, q):
        kind, bits = TYPE_CLASSES[q["type"]]
        same = [c for c in _SAME_KIND.get(kind, []) if TYPE_CLASSES[c][1] != bits]
        same = same or [c for c in REG_CLASSES if TYPE_CLASSES[c][1] != bits and c != ".pred"]
        load.dest = k.regs(rng.choice(same), len(load.dest))

    @op
    def wrong_arity(rng, k, load, q):
        """A brace list of the wrong length (for a scalar load: a list of 1, 2 or 4)."""
        n = len(load.dest)
        count = rng.choice([n - 1, n + 1, 2 * n, 3]) if load.vector else rng.choice([1, 2, 4])
        load.dest = k.regs(q["type"], max(count, 1))
        load.vector = True
        return dict(count=max(count, 1))

    @op
    def scalar_for_vector(rng, k, load, q):
        load.vector = False
        load.dest = load.dest[:1]

    @op
    def sink(rng, k, load, q):
        where = rng.choice(["scalar", "element", "all", "policy", "address"])
        if where == "scalar":
            load.dest, load.vector = ["_"], False
        elif where == "element":
            if not load.vector:
                load.dest, load.vector = load.dest + k.regs(q["type"], 1), True
            load.dest[rng.randrange(len(load.dest))] = "_"
        elif where == "all":
            load.dest = ["_"] * max(2, len(load.dest))
            load.vector = True
        elif where == "policy":
            load.extra = ["_"]
            if "cache_hint" not in q:
                load.quals.insert(len(load.quals) - 1, ".L2::cache_hint")
        else:
            load.address = "[_]"
        return dict(sink=where)

    @op
    def immediate_address(rng, k, load, q):
        load.address = f"[{rng.choice([0, 240, 4096, 65536])}]"

    @op
    def policy_without_hint(rng, k, load, q):
        if "cache_hint" in q:
            load.quals.remove(".L2::cache_hint")
        else:
            load.extra = [k.policy()]

    @op
    def hint_without_policy(rng, k, load, q):
        if "cache_hint" not in q:
            load.quals.insert(len(load.quals) - 1, ".L2::cache_hint")
        load.extra = []

    @op
    def policy_operand_kind(rng, k, load, q):
        if "cache_hint" not in q:
            load.quals.insert(len(load.quals) - 1, ".L2::cache_hint")
        kind = rng.choice(["imm", ".b32", ".u64", ".f64", "var"])
        load.extra = ["1" if kind == "imm" else "gvar" if kind == "var" else k.reg(kind)]
        return dict(policy=kind)

    @op
    def odd_address(rng, k, load, q):
        form = rng.choice(["reg32", "reg16", "reg-off", "undefined", "double-off", "reg+reg",
                           "var-of-other-space"])
        if form == "reg32":
            load.address = f"[{k.reg('.b32')}]"
        elif form == "reg16":
            load.address = f"[{k.reg('.b16')}]"
        elif form == "reg-off":
            load.address = "[%addr-8]"
        elif form == "undefined":
            load.address = "[nosuchvar]"
        elif form == "double-off":
            load.address = "[%addr+8+8]"
        elif form == "reg+reg":
            load.address = f"[%addr+{k.reg('.b64')}]"
        else:
            space = rng.choice([s for s in LD_SPACES if base_space(s) != base_space(q.get("space"))])
            load.address = f"[{k.variable(space)}]"
        return dict(address=form)

    @op
    def generic_variable(rng, k, load, q):
        """Generic addressing of a named variable of each state space."""
        if q.get("space"):
            load.quals.remove(q["space"])
        space = rng.choice([s for s in LD_SPACES if s])
        load.address = f"[{k.variable(space)}{rng.choice(['', '+8'])}]"
        return dict(variable=VARIABLE_OF[base_space(space)])

    @op
    def unified(rng, k, load, q):
        form = rng.choice(["reg", "var", "decl", "decl-plain", "decl-undeclared"])
        if form == "reg":
            load.address = "[%addr].unified"
        elif form == "var":
            load.address = f"[{k.variable(q.get('space'))}].unified"
        elif form == "decl":
            load.address = "[ugvar].unified"
        elif form == "decl-plain":
            load.address = "[ugvar]"
        else:
            load.address = "[nosuchvar].unified"
        kw = dict(unified=form)
        if form.startswith("decl"):
            kw.update(prelude=UNIFIED_PRELUDE, flags=("-c",))
        return kw

    @op
    def guard(rng, k, load, q):
        kind = rng.choice(["pred", "negated", "nonpred"])
        p = k.predicate() if kind != "nonpred" else k.reg(".b32")
        load.guard = ("!" if kind == "negated" else "") + p
        return dict(guard=kind)

    @op
    def operand_count(rng, k, load, q):
        kind = rng.choice(["extra", "missing-address", "dest-immediate", "dest-variable"])
        if kind == "extra":
            load.extra = load.extra + [k.policy(), k.policy()][: 2 - len(load.extra)]
        elif kind == "missing-address":
            load.address, load.extra = load.dest[-1], []
            load.dest, load.vector = load.dest[:1], False
        elif kind == "dest-immediate":
            load.dest, load.vector = ["5"], False
        else:
            load.dest, load.vector = ["gvar"], False
        return dict(operands=kind)

    return M


MUTATIONS = _mutations()


def _mutated_loads(family_name: str, ops: dict[str, Callable], count: int, modern_bias: float,
                   latest_bias: float):
    """`count` random loads, each edited by the next operator of `ops` in turn."""
    rng = _rng(family_name)
    names = sorted(ops)
    for i in range(count):
        name = names[i % len(names)]
        q = random_quals(rng)
        target = _pick_target(rng, modern_bias)
        v = _pick_version(rng, target, latest_bias)
        k = Kernel()
        load = build_ld(k, q)
        kw = ops[name](rng, k, load, q) or {}
        yield v, target, k, load, dict(mutation=name, **kw)


@family("ld.mutation")
def _ld_mutation():
    yield from _mutated_loads("ld.mutation", MUTATIONS, 3200, 0.7, 0.5)


def _operand_mutations() -> dict[str, Callable]:
    """Destination-operand edits: mixed classes, repeats, undeclared names, non-registers."""
    M, op = _registry()

    def as_vector(k, load, q):
        if not load.vector:
            load.dest, load.vector = load.dest + k.regs(q["type"], 1), True
            load.quals.insert(len(load.quals) - 1, ".v2")

    @op
    def mixed_classes(rng, k, load, q):
        as_vector(k, load, q)
        i = rng.randrange(len(load.dest))
        load.dest[i] = k.reg(rng.choice([c for c in REG_CLASSES if c != q["type"]]))

    @op
    def repeated_register(rng, k, load, q):
        as_vector(k, load, q)
        load.dest[-1] = load.dest[0]

    @op
    def undeclared_register(rng, k, load, q):
        load.dest[rng.randrange(len(load.dest))] = "%nosuchreg"

    @op
    def predicate_destination(rng, k, load, q):
        load.dest = k.regs(".pred", len(load.dest))

    @op
    def immediate_element(rng, k, load, q):
        as_vector(k, load, q)
        load.dest[-1] = rng.choice(["5", "0f3F800000", "-1"])

    @op
    def special_register_destination(rng, k, load, q):
        load.dest[0] = rng.choice(["%tid.x", "%laneid", "%clock"])

    @op
    def address_register_as_destination(rng, k, load, q):
        load.dest[0] = "%addr"

    return M


OPERAND_MUTATIONS = _operand_mutations()


@family("ld.operands")
def _ld_operands():
    yield from _mutated_loads("ld.operands", OPERAND_MUTATIONS, 560, 0.8, 0.6)


# The same load spelled with other whitespace, comments and line breaks; `{bad}` marks where the
# wrong variant puts an L1 eviction priority ptxas refuses for `.shared`.
SPELLINGS = (
    "ld.{ss}{bad}.u32 {d},[%addr];",
    "ld.{ss}{bad}.u32\t{d} ,\t[ %addr ] ;",
    "ld.{ss}{bad}.u32 {d}, /* comment */ [%addr];",
    "ld.{ss}{bad}.u32 {d}, [%addr]; // trailing comment",
    "ld.{ss}{bad}.u32 {d},\n\t\t[%addr];",
    "ld.{ss}{bad}.u32\n\t\t{d}, [%addr];",
    "ld.{ss}{bad}.u32 {d}, [%addr]\n\t\t;",
    "ld.{ss}{bad}.u32 {d}, [%addr]; ld.{ss}.u32 {d}, [%addr];",
    "L_here: ld.{ss}{bad}.u32 {d}, [%addr];",
    "@%pred_0 ld.{ss}{bad}.u32 {d}, [%addr];",
    "@ %pred_0 ld.{ss}{bad}.u32 {d}, [%addr];",
    "ld.{ss}{bad}.v2.u32 {{{d}, {d2}}}, [%addr];",
    "ld.{ss}{bad}.v2.u32 {{ {d} ,\n\t\t{d2} }}, [%addr];",
    "ld.{ss}{bad}.v2.u32 {{{d},/*x*/{d2}}}, [%addr];",
)


@family("ld.spelling")
def _spelling():
    for ss in (".global", ".shared"):
        for bad in ("", ".L1::evict_last"):
            for form in SPELLINGS:
                k = Kernel()
                d, d2 = k.regs(".u32", 2)
                if "%pred_0" in form:
                    k.predicate()
                text = form.format(ss=ss[1:], bad=bad, d=d, d2=d2)
                yield (9, 0), "sm_90", k, text, dict(space=ss, wrong=bool(bad), form=form)


@family("ld.multi")
def _multi():
    """Two or three mutated loads in one kernel: every error must sit on its own line."""
    rng = _rng("ld.multi")
    names = sorted(MUTATIONS)
    for _ in range(300):
        target = _pick_target(rng, 0.7)
        v = _pick_version(rng, target, 0.6)
        k = Kernel()
        loads = []
        for _ in range(rng.choice([2, 3])):
            q = random_quals(rng)
            load = build_ld(k, q)
            if rng.random() < 0.7:
                kw = MUTATIONS[rng.choice(names)](rng, k, load, q) or {}
                if "prelude" in kw:          # keep one module-scope context per case
                    load = build_ld(k, q)
            loads.append(load.text())
        k.lines += loads[:-1]
        yield v, target, k, loads[-1], dict(count=len(loads))


@family("ld.symbols")
def _symbols():
    """Addresses that name what is not data (a function, a label, a float/predicate register),
    destinations of types that are not register types, opcode near misses, a device function
    reading its own return parameter, misaligned wmma strides."""
    for space in (".global", None, ".shared"):
        q = plain_quals(".u32", space)
        for what in ("function", "label", ".f32", ".f64", ".pred", ".f16", ".b16", ".u64"):
            k = Kernel()
            kw = {}
            if what == "function":
                addr, kw = "[fret]", dict(prelude=RETURN_PRELUDE)
            elif what == "label":
                k.setup.append("L_target:")
                addr = "[L_target]"
            else:
                addr = f"[{k.reg(what)}]"
            yield (9, 0), "sm_90", k, build_ld(k, q, addr=addr), dict(address=what, space=space, **kw)
    for t in NON_LD_TYPES:                     # `.reg .bf16` etc. as destinations
        if t in REG_CLASSES:
            continue
        k = Kernel()
        k.declare(f".reg {t} %x;")
        yield (9, 0), "sm_90", k, "ld.global.b16 %x, [%addr];", dict(reg=t)
    for opcode in ("lod.global", "ld_global", "LD.global", "ldu.global", "ld.global.ld", "l.global",
                   "ldg.global", "ld..global", "ld.global.", ".ld.global"):
        k = Kernel()
        yield (9, 0), "sm_90", k, f"{opcode}.u32 {k.reg('.u32')}, [%addr];", dict(opcode=opcode)
    for param in ("fr", "fp"):                 # a device function reading its return / input
        load = Load("ld", [".param", ".b32"], ["%f_0"], False, f"[{param}]")
        k = Kernel()
        r = k.reg(".b32")
        k.setup += ["{", ".param .b32 r0;", ".param .b32 a0;", "st.param.b32 [a0], 0;"]
        k.tail += ["call (r0), fload, (a0);", f"ld.param.b32 {r}, [r0];", "}"]
        yield (9, 0), "sm_90", k, load.text(), dict(
            prelude=_func_prelude(load, ".param .b32 fp"), in_prelude=True, param=param)
    for f in W.legal_combinations():           # immediate strides around the alignment rule
        if f.matrix != "a":
            continue
        default = f.default_stride(f.layouts[0])
        for stride in sorted({default // 2, default + 1, default + 8, 2 * default, 0, 1}):
            k = Kernel()
            load = wmma_load(k, f, f.layouts[0], None, "none", (9, 0))
            load.extra = [str(stride)]
            yield (9, 0), "sm_90", k, load, dict(shape=f.shape, type=f.type, stride=stride)


def _mutated_header(kind: str, text: str) -> tuple[str, ...]:
    version, target, size = ".version 9.0", ".target sm_90", ".address_size 64"
    if kind == "order":
        return {"swap": (target, version, size), "repeat-target": (version, target, size, target),
                "size-first": (version, size, target)}[text]
    if kind == "version":
        version = text
    elif kind == "target":
        target = text
    else:
        size = text
    return tuple(x for x in (version, target, size) if x)


@family("header.mutation")
def _header_mutation():
    """Headers ptxas does not take: unknown versions and targets, `.address_size 32`, misplaced or
    repeated directives (the load itself is fine)."""
    variants = [
        ("version", ".version 5.5"), ("version", ".version 9.9"), ("version", ".version 10.0"),
        ("version", ".version 8"), ("target", ".target sm_99"), ("target", ".target sm_100b"),
        ("target", ".target compute_90"), ("target", ".target sm_90, texmode_independent"),
        ("target", ".target sm_90, debug"), ("target", ".target sm_90 sm_80"),
        ("address_size", ".address_size 32"), ("address_size", ".address_size 16"),
        ("address_size", ""), ("order", "swap"), ("order", "repeat-target"),
        ("order", "size-first"),
    ]
    for kind, text in variants:
        k = Kernel()
        load = build_ld(k, plain_quals(".u32", ".global"))
        yield (9, 0), "sm_90", k, load, dict(kind=kind, variant=text,
                                             header=_mutated_header(kind, text))


# ---- ld.param: return values, predicates, ::entry / ::func -----------------------------------

@family("ld.param")
def _param():
    """ld.param of a call's return value (unguarded, guarded, negated guard) through every
    `.param` spelling and generic addressing; a kernel parameter; a `.param` declared in the body."""
    spaces = [s for s in LD_SPACES if base_space(s) == ".param"] + [None]
    for target, v in (("sm_90", (9, 0)), ("sm_75", (8, 3)), ("sm_80", (7, 8)), ("sm_100", (8, 8))):
        for space in spaces:
            for guard in ("", "pred", "negated"):
                for t in (".b32", ".u32", ".f32"):
                    k = Kernel()
                    g = ("!" if guard == "negated" else "") + k.predicate() if guard else ""
                    k.setup += ["{", ".param .b32 rv0;", "call (rv0), fret, ();"]
                    k.tail.append("}")
                    load = build_ld(k, plain_quals(t, space), addr="[rv0]")
                    load.guard = g
                    yield v, target, k, load, dict(
                        prelude=RETURN_PRELUDE, what="return-value", space=space or "generic",
                        guard=guard or "none", type=t)
            # kernel parameter through each sub-qualifier, a param declared in the body
            for t in (".b32", ".u64"):
                k = Kernel()
                q = plain_quals(t, space)
                yield v, target, k, build_ld(k, q, addr="[pb+8]"), dict(
                    what="kernel-param", space=space or "generic")
                k = Kernel()
                k.declare(".param .b32 a0;")
                yield v, target, k, build_ld(k, q, addr="[a0]"), dict(
                    what="body-param", space=space or "generic")


# ---- headers -----------------------------------------------------------------------------------

@family("header")
def _header():
    """`.version` older than the target needs; versions newer than ptxas 13.0 supports."""
    simple = {"space": ".global", "type": ".u32"}
    for target in TARGETS:
        prev = _previous(T.TARGET_INTRODUCED[target])
        if prev and prev >= FIRST_VERSION:
            k = Kernel()
            yield prev, target, k, build_ld(k, dict(simple)), dict(what="version-below-target")
    for v in NEWER_VERSIONS:
        for target in ("sm_90", "sm_100", "sm_120"):
            for q in (simple, {"space": ".local", "sem": ".volatile", "type": ".u32"}):
                k = Kernel()
                yield v, target, k, build_ld(k, dict(q)), dict(what="newer-version")


# ---- wmma.load -----------------------------------------------------------------------------------

WMMA_SPACES = (None,) + W.STATE_SPACES
# ld state spaces wmma.load lacks (and ld.global.nc's pair), and ld qualifiers foreign to wmma.
NON_WMMA_SPACES = tuple(s for s in LD.GROUPS["space"] if s[1:] not in W.STATE_SPACES) + (".global.nc",)
LD_ONLY_QUALIFIERS = (LD.GROUPS["vec"] + LD.GROUPS["cop"][:2] + LD.GROUPS["nc"] + LD.GROUPS["sem"][1:3]
                      + LD.GROUPS["l1_evict"][-2:])
WMMA_STRIDES = ("none", "imm", "reg")


def wmma_load(k: Kernel, f: W.FragmentSpec, layout: str, space: str | None, stride: str,
              version) -> Load:
    quals = [f".{f.matrix}", ".sync"]
    if W.aligned_rule(version) == "required":
        quals.append(".aligned")
    quals += [f".{layout}", f".{f.shape}"]
    if space:
        quals.append(f".{space}")
    quals.append(f".{f.type}")
    cls = "." + f.register_classes[0]
    extra = []
    if stride == "imm":
        extra = [str(f.default_stride(layout))]
    elif stride == "reg":
        r = k.reg(".b32")
        k.setup.append(f"mov.b32 {r}, {f.default_stride(layout)};")
        extra = [r]
    return Load("wmma.load", quals, k.regs(cls, f.nregs), True, "[%addr]", extra)


def _wmma_target(rng: random.Random, f: W.FragmentSpec) -> str:
    ok = [t for t in TARGETS if sm(t) >= f.gate.min_sm]
    return rng.choice(ok) if rng.random() < 0.75 else rng.choice(TARGETS)


def _wmma_version(rng: random.Random, target: str, f: W.FragmentSpec):
    vs = versions_for(target)
    ok = [v for v in vs if v >= f.gate.min_ptx] or list(vs)
    return rng.choice(ok) if rng.random() < 0.8 else rng.choice(vs)


@family("wmma.legal")
def _wmma_legal():
    rng = _rng("wmma.legal")
    for f in W.legal_combinations():
        if f.matrix == "d":
            continue
        for layout in W.LAYOUTS:
            for space in WMMA_SPACES:
                for stride in WMMA_STRIDES:
                    target = _wmma_target(rng, f)
                    v = _wmma_version(rng, target, f)
                    k = Kernel()
                    yield v, target, k, wmma_load(k, f, layout, space, stride, v), dict(
                        shape=f.shape, matrix=f.matrix, type=f.type, layout=layout,
                        space=space or "generic", stride=stride)


@family("wmma.grid")
def _wmma_grid():
    """(shape, matrix, type) outside the table, with the register count of a legal neighbour."""
    for shape in W.SHAPES:
        for matrix in "abc":
            for t in W.ELEMENT_BITS:
                if W.is_legal(shape, matrix, t):
                    continue
                nregs = 1 if W.ELEMENT_BITS[t] == 64 else 8
                f = W.FragmentSpec(shape, matrix, t, nregs, 64 if t == "f64" else 32,
                                   ("f64",) if t == "f64" else ("b32",), ("row",), W.Gate((7, 0), 80))
                for target, v in (("sm_90", (9, 0)), ("sm_80", (7, 0))):
                    k = Kernel()
                    yield v, target, k, wmma_load(k, f, "row", None, "none", v), dict(
                        shape=shape, matrix=matrix, type=t)


@family("wmma.fragments")
def _wmma_fragments():
    """Every legal fragment with every register class and with every other register count
    (1, 2, 3, 4, 8, 16), on sm_90 / PTX 9.0."""
    for f in W.legal_combinations():
        if f.matrix == "d":
            continue
        for cls in REG_CLASSES:
            k = Kernel()
            load = wmma_load(k, f, f.layouts[0], None, "none", (9, 0))
            load.dest = k.regs(cls, f.nregs)
            yield (9, 0), "sm_90", k, load, dict(shape=f.shape, matrix=f.matrix, type=f.type, reg=cls)
        for n in (1, 2, 3, 4, 8, 16):
            if n == f.nregs:
                continue
            k = Kernel()
            load = wmma_load(k, f, f.layouts[0], None, "none", (9, 0))
            load.dest = k.regs("." + f.register_classes[0], n)
            yield (9, 0), "sm_90", k, load, dict(shape=f.shape, matrix=f.matrix, type=f.type, count=n)


def _wmma_mutations() -> dict[str, Callable]:
    M, op = _registry()

    @op
    def register_count(rng, k, load, f):
        n = rng.choice([c for c in (1, 2, 3, 4, 8, 16) if c != f.nregs])
        load.dest = k.regs("." + f.register_classes[0], n)
        return dict(count=n)

    @op
    def register_class(rng, k, load, f):
        cls = rng.choice([c for c in REG_CLASSES if c[1:] != f.register_classes[0]])
        load.dest = k.regs(cls, f.nregs)
        return dict(reg=cls)

    @op
    def drop_qualifier(rng, k, load, f):
        x = rng.choice([q for q in load.quals if q != f".{f.matrix}"])
        load.quals.remove(x)
        return dict(dropped=x)

    @op
    def swap_qualifiers(rng, k, load, f):
        i = rng.randrange(1, len(load.quals) - 1)
        load.quals[i], load.quals[i + 1] = load.quals[i + 1], load.quals[i]

    @op
    def toggle_aligned(rng, k, load, f):
        if ".aligned" in load.quals:
            load.quals.remove(".aligned")
        else:
            load.quals.insert(2, ".aligned")

    @op
    def other_space(rng, k, load, f):
        space = rng.choice(NON_WMMA_SPACES)
        load.quals.insert(len(load.quals) - 1, space)
        return dict(space=space)

    @op
    def other_layout(rng, k, load, f):
        i = next(i for i, q in enumerate(load.quals) if q[1:] in W.LAYOUTS)
        load.quals[i] = ".col" if load.quals[i] == ".row" else ".row"

    @op
    def stride_kind(rng, k, load, f):
        kind = rng.choice(["b64", "u16", "f32", "neg", "huge", "sink", "two"])
        load.extra = {"b64": [k.reg(".b64")], "u16": [k.reg(".u16")], "f32": [k.reg(".f32")],
                      "neg": ["-16"], "huge": ["4294967296"], "sink": ["_"],
                      "two": ["16", "16"]}[kind]
        return dict(stride=kind)

    @op
    def address_kind(rng, k, load, f):
        kind = rng.choice(["imm", "unified", "var", "reg+off", "reg32"])
        load.address = {"imm": "[240]", "unified": "[%addr].unified", "var": "[svar]",
                        "reg+off": "[%addr+64]", "reg32": f"[{k.reg('.b32')}]"}[kind]
        return dict(address=kind)

    @op
    def extra_qualifier(rng, k, load, f):
        x = rng.choice(LD_ONLY_QUALIFIERS + (_misspell(rng, rng.choice(load.quals)),))
        load.quals.insert(rng.randrange(1, len(load.quals) + 1), x)
        return dict(extra=x)

    @op
    def sink_element(rng, k, load, f):
        load.dest[rng.randrange(len(load.dest))] = "_"

    return M


WMMA_MUTATIONS = _wmma_mutations()


@family("wmma.mutation")
def _wmma_mutation():
    rng = _rng("wmma.mutation")
    frags = [f for f in W.legal_combinations() if f.matrix != "d"]
    names = sorted(WMMA_MUTATIONS)
    for i in range(900):
        name = names[i % len(names)]
        f = rng.choice(frags)
        target = rng.choice([t for t in MODERN_TARGETS] + ["sm_80", "sm_86", "sm_75", "sm_70"])
        v = _wmma_version(rng, target, f)
        k = Kernel()
        load = wmma_load(k, f, rng.choice(f.layouts), rng.choice(WMMA_SPACES),
                         rng.choice(WMMA_STRIDES), v)
        kw = WMMA_MUTATIONS[name](rng, k, load, f) or {}
        yield v, target, k, load, dict(mutation=name, shape=f.shape, matrix=f.matrix, type=f.type,
                                       **kw)


# ---------------------------------------------------------------------------------------------

def _self_check() -> None:
    """Every qualifier the generator picks on its own (natural companions, gate instances,
    sampled sets) must be in the spec vocabulary, so the tables stay the one source."""
    rng = random.Random("self-check")
    sets = [complete(p) for _, p in _gate_instances()] + [random_quals(rng) for _ in range(300)]
    bad = {(g, v) for q in sets for g, v in q.items() if v not in LD.GROUPS.get(g, ())}
    bad |= {x for x in LD_ONLY_QUALIFIERS + NON_WMMA_SPACES[:-1] if x not in GROUP_OF}
    if bad:
        raise RuntimeError(f"generator uses qualifiers outside ptxld.spec.ld: {sorted(map(str, bad))}")


_self_check()

# the whole-ISA families, built from every instruction record
from . import isa  # noqa: E402  (it builds on the helpers above)

FAMILIES.update(isa.families(Kernel, TARGETS, versions_for))


@lru_cache(maxsize=1)
def all_cases() -> tuple[Case, ...]:
    """Every case of every family, duplicates (same module and options) removed."""
    out: list[Case] = []
    seen: set[tuple] = set()
    for name, gen in FAMILIES.items():
        i = 0
        for v, target, k, load, kw in gen():
            kw = dict(kw)
            prelude = kw.pop("prelude", STANDARD_PRELUDE)
            flags = kw.pop("flags", ())
            kw.setdefault("in_prelude", False)
            case = make_case(name, i, v, target, k, load, prelude=prelude, flags=flags, **kw)
            ident = (case.text, case.arch, case.flags)
            if ident in seen:
                continue
            seen.add(ident)
            out.append(case)
            i += 1
    return tuple(out)


def by_id() -> dict[str, Case]:
    return {c.id: c for c in all_cases()}


def counts() -> dict[str, int]:
    c: dict[str, int] = {}
    for case in all_cases():
        c[case.family] = c.get(case.family, 0) + 1
    return c


if __name__ == "__main__":
    for fam, n in counts().items():
        print(f"{fam:16} {n}")
    print(f"{'total':16} {len(all_cases())}")

"""The rule registry: every rule's record sits next to the function that checks it.

A rule module registers each checking function with `@rule(trigger, Rule(...), ...)`: the
trigger says what the checker runs it on (`Trigger`), the records say which stable codes it
reports, with their documentation and tested examples. A rule's page (`ptxld explain CODE`,
docs/rules/CODE.md) is generated from its record; its two examples are tests: `bad` must trigger
exactly this code and `good` must not trigger it.

A helper that several checking functions call registers the records of the codes it reports
with `@reports(...)`; the functions that call it name those codes in `also=`, so that selecting
a code always runs every function that can report it.
"""
from __future__ import annotations

from ..slotted import Record

# The kernel every short example is placed in (a body line is inserted at {body}).
PRELUDE = """\
.version {version}
.target {target}
.address_size 64
{decls}
.global .align 32 .b8 gbuf[1024];
.shared .align 32 .b8 sbuf[1024];
.const .align 32 .b8 cbuf[1024];

.visible .entry kernel(.param .u64 param_ptr)
{{
    .reg .pred %p<2>;
    .reg .b16 %h<8>;
    .reg .b32 %r<8>;
    .reg .b64 %rd<8>;
    .reg .f32 %f<8>;
    .reg .f64 %fd<8>;
    ld.param.u64 %rd0, [param_ptr];
{body}
    ret;
}}
"""

# PTX ISA sections the records cite most often
LD_SECTION = "PTX ISA 9.7.9.8 (ld)"
NC_SECTION = "PTX ISA 9.7.9.9 (ld.global.nc)"
WMMA_SECTION = "PTX ISA 9.7.14.4.3 (wmma.load)"
TABLE28_SECTION = "PTX ISA 9.4.1 (Table 28, relaxed type-checking rules)"
ADDRESS_SECTION = "PTX ISA 6.4.1 (Addresses as Operands)"
MODULE_SECTION = "PTX ISA 11.1 (Module directives)"
PTXAS_MEASURED = "ptxas 13.0 (measured)"


def whole_module(header: str, body: str = "ret;") -> str:
    """An example module: `header`, then one kernel whose body is `body`."""
    return f"{header}\n\n.visible .entry kernel()\n{{\n    {body}\n}}\n"


class Example(Record):
    """PTX for a rule page: `body` lines inside the standard kernel, or a whole `module`
    (fields: body, version, target, decls, module)."""
    __slots__ = FIELDS = ("body", "version", "target", "decls", "module")
    DEFAULTS = {"body": "", "version": "9.0", "target": "sm_90", "decls": "", "module": None}

    def source(self) -> str:
        if self.module is not None:
            return self.module
        body = "\n".join("    " + line.strip() for line in self.body.strip().splitlines())
        return PRELUDE.format(version=self.version, target=self.target, decls=self.decls, body=body)

    def shown(self) -> str:
        """What a rule page shows: the whole module, or the body with its header line."""
        if self.module is not None:
            return self.module.rstrip()
        head = f"// .version {self.version}, .target {self.target}, in the standard kernel"
        lines = [head] + ([self.decls.strip()] if self.decls.strip() else [])
        lines += [line.strip() for line in self.body.strip().splitlines()]
        return "\n".join(lines)


class Rule(Record):
    """A rule's record. `severity`: the default severity ("error" | "warning" | "note");
    `section`: the PTX ISA section (or "ptxas 13.0" for tool facts); `quote`: the normative
    sentence (or measured ptxas behaviour) behind the rule; `ptxas`: what ptxas 13.0 does / says
    for the `bad` example; `isa_only`: a rule of the PTX ISA text that ptxas does not enforce (a
    warning by default, an error under --strict)."""
    __slots__ = FIELDS = ("code", "name", "severity", "summary", "section", "quote", "bad", "good", "ptxas",
                          "isa_only", "explanation")
    DEFAULTS = {"ptxas": "", "isa_only": False, "explanation": ""}

    def severity_for(self, strict: bool) -> str:
        if self.isa_only and strict:
            return "error"
        return self.severity


class Trigger:
    """What a checking function runs on, and what it is called with (after the `Checker`)."""
    MODULE = "module"                    # once per module: (c)
    UNKNOWN_INSTRUCTION = "unknown instruction"  # an instruction that is no PTX instruction: (c, ins)
    GUARD = "guard"                      # every instruction guarded by `@p`: (c, ins)
    LD_OPCODE = "ld opcode"              # an `ld`'s opcode, once per module while it is clean: (c, ins, load)
    LD = "ld"                            # every `ld`, its operands: (c, ins, load)
    STORE = "store"                      # every `st`, `atom`, `red`: (c, ins)
    INSTRUCTION = "instruction"          # every other instruction with an ISA record: (c, ins)
    WMMA_LOAD = "wmma.load"              # every `wmma.load`: (c, ins, load)
    FAMILY = "family"                    # a family mnemonic (`wmma`, `cp`) with no record: (c, ins, decoded)
    NAMES = "names"                      # the instructions of one scope together: (c, scope, group)
    ALL = (MODULE, UNKNOWN_INSTRUCTION, GUARD, LD_OPCODE, LD, STORE, INSTRUCTION, WMMA_LOAD, FAMILY,
           NAMES)


# What a Trigger.INSTRUCTION function may return to say that it looked up every name of the
# instruction's operands and found each declared before the first instruction of its scope (and
# the operand text in the operand grammar's fast form): all that PTX0301's names pass would
# check of them, which then leaves the instruction out (records.py's plans look up every
# register of most instructions anyway).
NAMES_CHECKED = "names checked"


def names_only(functions: list) -> bool:
    """Whether the NAMES `functions` (those that run) report nothing but PTX0301, so that an
    instruction whose names were checked (`NAMES_CHECKED`) may be left out of their pass."""
    return all(k.codes <= {"PTX0301"} for k in CHECKS[Trigger.NAMES] if k.function in functions)


class Check:
    """A registered checking function: what it runs on and every code it can report."""
    __slots__ = ("function", "trigger", "codes")  # a plain class: dataclasses cost start-up time

    def __init__(self, function, trigger: str, codes: frozenset):
        self.function, self.trigger, self.codes = function, trigger, codes


RULES: dict[str, Rule] = {}
CHECKS: dict[str, list[Check]] = {t: [] for t in Trigger.ALL}
ONLY_ON: dict = {}  # function -> the instruction records it runs on (`rule(..., on=...)`)
OPCODE_ONLY: set = set()  # functions whose findings depend on the opcode alone


def _add(records: tuple) -> None:
    for r in records:
        if r.code in RULES:
            raise RuntimeError(f"rule code {r.code} registered twice")
        if r.isa_only and r.severity != "warning":
            raise RuntimeError(f"{r.code}: a rule ptxas does not enforce is a warning by default")
        RULES[r.code] = r


def rule(trigger: str, *records: Rule, also: tuple[str, ...] = (), on: tuple[str, ...] | None = None,
         opcode_only: bool = False):
    """Register the decorated function to run on `trigger`, reporting the codes of `records`
    (documented here) and the codes in `also` (documented with a helper or another function).
    For `Trigger.INSTRUCTION`: `on` names the instruction records (`call`, `tensormap.replace`)
    it runs on, where not on every instruction; `opcode_only` says that what it reports depends
    on the opcode string alone, so an opcode it found nothing on once is not checked again."""
    if trigger not in CHECKS:
        raise ValueError(f"unknown trigger {trigger!r}")
    if (on is not None or opcode_only) and trigger != Trigger.INSTRUCTION:
        raise ValueError("`on` and `opcode_only` narrow Trigger.INSTRUCTION only")

    def register(function):
        _add(records)
        CHECKS[trigger].append(Check(function, trigger, frozenset(r.code for r in records) | set(also)))
        if on is not None:
            ONLY_ON[function] = frozenset(on)
        if opcode_only:
            OPCODE_ONLY.add(function)
        return function
    return register


def applicable(functions: list, name: str) -> tuple:
    """Of `functions` (registered on Trigger.INSTRUCTION), those that run on the instruction
    record `name`."""
    return tuple(f for f in functions if (only := ONLY_ON.get(f)) is None or name in only)


def without_opcode_only(functions: tuple) -> tuple:
    """`functions` less those registered `opcode_only` (once they found nothing on an opcode)."""
    return tuple(f for f in functions if f not in OPCODE_ONLY)


def reports(*records: Rule):
    """Register the records of the codes a helper reports (its callers name them in `also`)."""
    def register(function):
        _add(records)
        return function
    return register


def checks_for(trigger: str, enabled) -> list:
    """The functions to run on `trigger`: those that can report an enabled code (all if None)."""
    return [k.function for k in CHECKS[trigger] if enabled is None or not k.codes.isdisjoint(enabled)]


def get(code: str) -> Rule | None:
    return RULES.get(code.upper())


def all_rules() -> list[Rule]:
    """Every rule, by code. The rule modules register on import: `ptxld.checker` imports them."""
    return [RULES[c] for c in sorted(RULES)]

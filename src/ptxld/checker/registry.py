"""The rule registry: one `Rule` per stable code, with its documentation and tested examples.

A rule's page (`ptxld explain CODE`, docs/rules/CODE.md) is generated from this record; its two
examples are tests: `bad` must trigger exactly this code and `good` must not trigger it.
"""
from __future__ import annotations

from dataclasses import dataclass

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


@dataclass(frozen=True)
class Example:
    """PTX for a rule page: `body` lines inside the standard kernel, or a whole `module`."""
    body: str = ""
    version: str = "9.0"
    target: str = "sm_90"
    decls: str = ""
    module: str | None = None

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


@dataclass(frozen=True)
class Rule:
    code: str
    name: str
    severity: str            # default severity: "error" | "warning" | "note"
    summary: str
    section: str             # PTX ISA section (or "ptxas 13.0" for tool facts)
    seed: str                # the normative sentence (or measured ptxas behaviour) behind the rule
    bad: Example
    good: Example
    ptxas: str = ""          # what ptxas 13.0 does / says for the bad example
    seed_only: bool = False  # stricter than ptxas: a warning by default, an error under --strict
    explanation: str = ""

    def severity_for(self, strict: bool) -> str:
        if self.seed_only and strict:
            return "error"
        return self.severity


RULES: dict[str, Rule] = {}


def register(*rules: Rule) -> None:
    for r in rules:
        if r.code in RULES:
            raise RuntimeError(f"rule code {r.code} registered twice")
        if r.seed_only and r.severity != "warning":
            raise RuntimeError(f"{r.code}: a seed-only rule is a warning by default")
        RULES[r.code] = r


def get(code: str) -> Rule | None:
    return RULES.get(code.upper())


def all_rules() -> list[Rule]:
    from . import catalog  # noqa: F401 - fills RULES
    return [RULES[c] for c in sorted(RULES)]

"""The checker is total: over generated loads and over arbitrary text/bytes it never raises and
never reports an internal error (PTX0000), from the parser or the checker; `parse` never raises."""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ptxld
from ptxld.spec import ld as LD
from ptxld.spec import wmma as W

HEADER = (".version {v}\n.target {t}\n.address_size 64\n.global .b8 g[64];\n.shared .b8 s[64];\n"
          ".visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<8>;\n.reg .b64 %rd<8>;\n.reg .f32 %f<8>;\n"
          ".reg .b16 %h<8>;\n.reg .pred %q;\n{body}\nret;\n}}\n")
QUALS = [q for qs in LD.GROUPS.values() for q in qs] + [".foo", ".wb", ".L2::evict_unchanged"]
REGS = ["%r1", "%rd1", "%f1", "%h1", "%q", "_", "g", "%nosuch", "1"]
ADDRS = ["[%rd0]", "[%r0]", "[g]", "[s+4]", "[240]", "[%rd0].unified", "[k]", "%rd0"]
VERSIONS = ["6.0", "7.4", "8.0", "8.8", "9.0", "9.1", "2.2", "1.0", "12.0"]
TARGETS = ["sm_20", "sm_70", "sm_75", "sm_90", "sm_100a", "sm_101", "sm_99", "compute_80"]
SETTINGS = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _no_internal(diags):
    bugs = [d.message for d in diags if d.code == "PTX0000"]
    assert not bugs, bugs
    assert diags == sorted(diags, key=lambda d: (d.filename, d.line, d.column, d.code))


@st.composite
def ld_instruction(draw):
    quals = draw(st.lists(st.sampled_from(QUALS), max_size=7))
    n = draw(st.sampled_from([1, 1, 2, 4, 8]))
    regs = draw(st.lists(st.sampled_from(REGS), min_size=n, max_size=n))
    dest = regs[0] if n == 1 and draw(st.booleans()) else "{" + ", ".join(regs) + "}"
    extra = draw(st.sampled_from(["", ", %rd1", ", %r1", ", 7", ", %rd1, %rd2"]))
    guard = draw(st.sampled_from(["", "@%q ", "@!%r1 "]))
    return f"{guard}ld{''.join(quals)} {dest}, {draw(st.sampled_from(ADDRS))}{extra};"


@st.composite
def wmma_instruction(draw):
    mods = draw(st.lists(st.sampled_from(["a", "b", "c", "sync", "aligned", "row", "col", *W.SHAPES,
                                          "global", "shared::cta", "const", *W.ELEMENT_BITS, "v8", "x"]),
                         max_size=8))
    n = draw(st.integers(0, 9))
    regs = ", ".join(draw(st.lists(st.sampled_from(REGS), min_size=n, max_size=n)))
    stride = draw(st.sampled_from(["", ", 16", ", %r1", ", %rd1", ", -3", ", 4294967296"]))
    return f"wmma.load.{'.'.join(mods)} {{{regs}}}, {draw(st.sampled_from(ADDRS))}{stride};"


@SETTINGS
@given(st.lists(st.one_of(ld_instruction(), wmma_instruction()), min_size=1, max_size=4),
       st.sampled_from(VERSIONS), st.sampled_from(TARGETS), st.booleans())
def test_total_over_the_grammar(lines, version, target, strict):
    src = HEADER.format(v=version, t=target, body="\n".join(lines))
    _no_internal(ptxld.check(src, strict=strict))


@SETTINGS
@given(st.text(alphabet=st.sampled_from(list(".%[]{}();,:_@!+-*/<>=\"\n\t ") + list("ldstglobaunifedmx0123456789v")),
               max_size=300))
def test_total_over_text(text):
    ptxld.parse(text)
    _no_internal(ptxld.check(text))
    _no_internal(ptxld.check(".version 9.0\n.target sm_90\n.entry k()\n{\n" + text + "\n}\n"))


@SETTINGS
@given(st.binary(max_size=200))
def test_total_over_bytes(data):
    _no_internal(ptxld.check(data.decode("utf-8", errors="replace")))


def test_parser_does_not_raise_on_an_empty_statement():
    """`ptxld.check` never raises; the parser must not either (a parser crash becomes PTX0000)."""
    diags = ptxld.check(".version 9.0\n.target sm_90\n.entry k()\n{\n;\n}\n")
    assert not [d for d in diags if d.code == "PTX0000"], [d.message for d in diags]

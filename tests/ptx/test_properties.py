"""Property tests built from the spec tables.

* every load-family instruction the spec vocabulary can form parses to a model whose slots are the
  qualifiers written, in any order; parse -> format -> parse gives the same model;
* the parser and the printer are total: arbitrary text and bytes never raise.
"""
from __future__ import annotations

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from ptxld.ptx.loads import to_json
from ptxld.ptx.parser import parse
from ptxld.ptx.printer import format_module
from ptxld.spec import ld as LD
from ptxld.spec import wmma as W

HEADER = (".version 9.0\n.target sm_100a\n.address_size 64\n.global .align 16 .b8 gvar[1024];\n"
          ".visible .entry k(.param .u64 p)\n{\n.reg .b32 %r<9>;\n.reg .b64 %rd<9>;\n.reg .f32 %f<9>;\n"
          ".reg .pred %p<2>;\n")

_names = st.sampled_from(["%r1", "%r2", "%rd1", "%f1", "_"])
_address = st.one_of(
    st.builds(lambda r: f"[{r}]", st.sampled_from(["%rd1", "%rd2", "gvar", "p"])),
    st.builds(lambda r, o: f"[{r}+{o}]", st.sampled_from(["%rd1", "gvar"]), st.integers(-2**23, 2**23)),
    st.builds(lambda o: f"[{o}]", st.integers(0, 2**20)),
)


@st.composite
def ld_instructions(draw):
    groups = [g for g in LD.GROUPS if draw(st.booleans()) or g == "type"]
    quals = {g: draw(st.sampled_from(LD.GROUPS[g])) for g in groups}
    order = draw(st.permutations(list(quals.values())))
    vec = LD.VECTOR_LENGTH.get(quals.get("vec", ""), 1)
    dests = [draw(_names) for _ in range(vec)]
    dest = "{" + ", ".join(dests) + "}" if vec > 1 else dests[0]
    ops = [dest, draw(_address) + (".unified" if draw(st.booleans()) else "")]
    if draw(st.booleans()):
        ops.append(draw(st.sampled_from(["%rd3", "1", "0x10"])))
    guard = draw(st.sampled_from(["", "@%p1 ", "@!%p1 "]))
    return quals, f"{guard}ld{''.join(order)} {', '.join(ops)};"


@st.composite
def wmma_instructions(draw):
    spec = draw(st.sampled_from([f for f in W.legal_combinations() if f.matrix != "d"]))
    layout = draw(st.sampled_from(spec.layouts))
    words = ["sync", "aligned", layout, spec.shape, spec.type]
    if draw(st.booleans()):
        words.append(draw(st.sampled_from(W.STATE_SPACES)))
    words = draw(st.permutations(words))
    regs = ", ".join(f"%r{i % 8}" for i in range(spec.nregs))
    stride = draw(st.sampled_from(["", ", 16", ", %r8"]))
    return spec, f"wmma.load.{spec.matrix}.{'.'.join(words)} {{{regs}}}, [%rd1]{stride};"


def _model(module):
    return [to_json(i.load) | {"line": 0, "column": 0} for i in module.loads()]


@settings(max_examples=400, suppress_health_check=[HealthCheck.too_slow])
@given(ld_instructions())
def test_ld_parses_to_its_qualifiers_and_round_trips(case):
    quals, text = case
    module = parse(HEADER + text + "\n}\n")
    assert not module.diagnostics, (text, module.diagnostics)
    [ins] = module.loads()
    model = ins.load
    assert {g: q for g, (q, _, _) in model.quals.items()} == quals
    assert not model.unknown
    # spans point at the qualifier text
    src = module.source.text
    assert all(src[s:e] == q for q, s, e in model.quals.values())
    again = parse(format_module(module))
    assert not again.diagnostics
    assert _model(again) == _model(module)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(wmma_instructions())
def test_wmma_load_parses_to_its_qualifiers_and_round_trips(case):
    spec, text = case
    module = parse(HEADER + text + "\n}\n")
    assert not module.diagnostics, (text, module.diagnostics)
    [ins] = module.loads()
    m = ins.load
    assert (m.matrix, m.shape, m.element_type) == (spec.matrix, spec.shape, spec.type)
    assert m.type == "." + spec.type  # spelt as in `ld` models
    assert len(m.dests) == spec.nregs
    again = parse(format_module(module))
    assert _model(again) == _model(module)


@settings(max_examples=300, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.sampled_from(list(".%[]{}();:,@!_-+*/\"#<>=\n\t ldstglobalu32v4f.:0x9") +
                                ["//", "/*", "*/", ".entry k()", ".reg .b32 %r<4>;", "ld.global.v4.u32",
                                 ".version 8.0\n", ".target sm_90\n", ".loc 1 2 3\n", ".local"]),
                max_size=150).map("".join))
def test_parser_and_printer_are_total_on_ptx_like_text(text):
    module = parse(text)
    for d in module.diagnostics:
        assert d.line >= 1 and d.column >= 1
    if not any(d.severity == "error" for d in module.diagnostics):
        format_module(module)


@settings(max_examples=200)
@given(st.binary(max_size=300))
def test_parser_is_total_on_bytes(data):
    module = parse(data.decode("utf-8", errors="replace"))
    assert isinstance(module.diagnostics, list)


@settings(max_examples=200, suppress_health_check=[HealthCheck.too_slow])
@given(st.text(max_size=200))
def test_parser_recovers_after_a_bad_statement(garbage):
    """A bad statement never hides the statements after it."""
    garbage = garbage.replace("}", "").replace("{", "")
    # `/*` rightly eats the rest, and `//` the `;` that ends the garbage (`0//;` then the load
    # is one statement, as ptxas reads it too)
    while "/*" in garbage or "//" in garbage:
        garbage = garbage.replace("/*", "").replace("//", "")
    module = parse(HEADER + garbage + ";\nld.global.u32 %r1, [%rd1];\n}\n")
    assert any(i.opcode == "ld.global.u32" for i in module.instructions)

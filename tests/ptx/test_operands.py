"""The operand fast path gives exactly the model of the general operand parser."""
from __future__ import annotations

import glob
import os

import pytest

from ptxld.ptx.operands import parse_operands
from ptxld.ptx.parser import parse

HERE = os.path.dirname(__file__)
FILES = sorted(glob.glob(os.path.join(HERE, "..", "kernels", "ptx", "sm_90", "*.ptx"))) + sorted(
    glob.glob(os.path.join(HERE, "..", "..", "..", "shared", "corpus", "ptx", "**", "*.ptx"), recursive=True))[:60]


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_fast_path_equals_general_parser(path):
    module = parse(open(path, encoding="utf-8").read(), eager=False)
    for ins in module.instructions:
        # repr, not ==: a NaN literal (0f7FC00000) is never == itself
        fast, general = repr(parse_operands(ins, fast=True)[0]), repr(parse_operands(ins, fast=False)[0])
        assert fast == general, ins.text


@pytest.mark.parametrize("text, expected", [
    ("ld.global.u32 %r1, [%rd1+-8];", ("register+offset", -8)),
    ("ld.global.u32 %r1, [%rd1 + 0x10];", ("register+offset", 16)),
    ("ld.local.b64 %rd1, [240];", ("immediate", 240)),
    ("ld.shared.u32 %r1, [sh+4];", ("variable+offset", 4)),
    ("ld.shared.u32 %r1, [sh];", ("variable", 0)),
    ("ld.u32 %r1, [%rd1];", ("register", 0)),
    ("ld.global.u32 %r1, [%rd1+(2*8)];", ("register+offset", 16)),
])
def test_address_forms(text, expected):
    src = (".version 8.0\n.target sm_90\n.address_size 64\n.shared .b8 sh[64];\n"
           ".entry k() {\n.reg .b32 %r<3>;\n.reg .b64 %rd<3>;\n" + text + "\n}\n")
    module = parse(src)
    assert not module.diagnostics
    addr = module.instructions[0].load.address
    assert (addr.mode, addr.offset) == expected


def test_minus_offset_is_a_syntax_error_with_fix_hint():
    # ptxas: `[%addr-8]` -> "Parsing error near '-': syntax error" (ptxas-vs-seeds B12)
    src = ".version 8.0\n.target sm_90\n.entry k() {\n.reg .b32 %r1;\n.reg .b64 %rd1;\nld.global.u32 %r1, [%rd1-8];\n}\n"
    module = parse(src)
    [d] = module.diagnostics
    assert (d.line, d.severity) == (6, "error")
    assert "+-8" in d.help


@pytest.mark.parametrize("line, expected", [
    (".foo 1", [(4, "PTX0113"), (5, "PTX0001")]),   # ptxas: error on line 4; the function survives
    (".global .u32 g", [(5, "PTX0001")]),          # ptxas: "Parsing error near '.visible'", line 5
    (".visible .func f(.param .b32 a)", []),       # old-style prototype without `;`: ptxas accepts
])
def test_a_module_level_statement_without_semicolon_does_not_swallow_the_next_function(line, expected):
    import ptxld
    src = (".version 8.0\n.target sm_90\n.address_size 64\n" + line +
           "\n.visible .entry k()\n{\n.reg .b32 %r<2>;\nmov.b32 %r1, 1;\n}\n")
    assert [(d.line, d.code) for d in ptxld.check(src) if d.severity == "error"] == expected
    assert "k" in ptxld.parse(src).functions


@pytest.mark.parametrize("path", FILES[:20], ids=os.path.basename)
def test_names_of_many_operand_lists_equal_the_name_regex(path):
    from ptxld.ptx.operands import FAST_LISTS, NAME_USE, fast_list_names
    module = parse(open(path, encoding="utf-8").read(), eager=False)
    texts = [i.operand_text for i in module.instructions]
    ok = [t for t in texts if FAST_LISTS.fullmatch(t + ";")]
    assert ok
    joined = ";".join(ok) + ";"
    assert FAST_LISTS.fullmatch(joined)
    assert fast_list_names(joined) == set(NAME_USE.findall(joined))
    # a list outside the fast grammar stops the match right before it
    bad = [t for t in texts if not FAST_LISTS.fullmatch(t + ";")]
    if bad:
        mixed = ok[0] + ";" + bad[0] + ";" + ok[0] + ";"
        assert FAST_LISTS.match(mixed).end() == len(ok[0]) + 1


def _functions(module):
    def var(v):
        return (v.name, v.space, v.type, v.start, v.end, v.name_start, v.vector, v.align, v.dims,
                v.range_count, v.init, v.linkage, v.attributes, v.ptr, v.function.name)
    return [(f.kind_, f.name, f.start, f.end, f.name_start, f.linkage, [var(p) for p in f.params],
             [var(p) for p in f.returns], repr(f.directives), f.attributes, f.noreturn)
            for f in module.functions.values()]


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_function_header_fast_path_equals_general_parser(path, monkeypatch):
    import re

    from ptxld.ptx import parser
    text = open(path, encoding="utf-8").read()
    fast = parse(text, eager=False)
    monkeypatch.setattr(parser, "_FAST_HEADER", re.compile(r"(?!)"))
    general = parse(text, eager=False)
    assert _functions(fast) == _functions(general)
    assert [(d.code, d.start) for d in fast.diagnostics] == [(d.code, d.start) for d in general.diagnostics]


def test_function_header_fast_path_is_taken_for_nvcc_headers(monkeypatch):
    from ptxld.ptx import parser
    taken = []
    real = parser._Parser._fast_header
    monkeypatch.setattr(parser._Parser, "_fast_header", lambda self, f, base: taken.append(1) or real(self, f, base))
    # a file of plain nvcc headers (kernels with performance directives take the general path)
    text = open(next(f for f in FILES if "loadforms_" in f), encoding="utf-8").read()
    module = parse(text, eager=False)
    assert 0 < len(taken) <= len(module.functions)


@pytest.mark.parametrize("path", FILES[:30], ids=os.path.basename)
def test_first_address_base_from_text_equals_the_parsed_operands(path):
    from ptxld.ptx.nodes import Address
    from ptxld.ptx.operands import first_address_base
    module = parse(open(path, encoding="utf-8").read(), eager=False)
    seen = 0
    for ins in module.instructions:
        from_text = first_address_base(ins)
        bases = [op.base for op in parse_operands(ins, fast=False)[0] if isinstance(op, Address) and op.base]
        assert repr(from_text) == repr(bases[0] if bases else None), ins.text
        seen += from_text is not None
    assert seen


@pytest.mark.parametrize("text", [" [%rd1+8], %r1", "\t[%rd5], {%r1, %r2}", " [smem+-4], 0f3F800000",
                                  " [%rd1], %tid.x", " [_], %r1", " [%rd1], -1", " [%rd1 + 0x10] , %r2 ",
                                  " [%rd1], %r1, %r2", " [%rd1], [%rd2]", " [%rd1+08], %r1", " [%rd1],",
                                  " [%rd1+-0x8], -  3", " [%r1], {_, %r2}", " [a], b.x", " [a], b.X"])
def test_first_address_base_of_a_store_list_is_the_fast_grammar_reading(text):
    # the one-match reading of `[base+imm], item` agrees with the fast grammar's reading
    from ptxld.ptx.nodes import Instruction, Module
    from ptxld.ptx.operands import _ADDRESS_AND_ITEM, _ADDRESS_BASE, first_address_base, in_fast_grammar
    from ptxld.ptx.source import Source
    ins = Instruction("st.u32", 0, len(text), 0, 0, text, None, Module(Source(text, "t")))
    if _ADDRESS_AND_ITEM.fullmatch(text):
        assert in_fast_grammar(text)
    expected = _ADDRESS_BASE.search(text).group(1) if in_fast_grammar(text) else None
    got = first_address_base(ins)
    if expected is not None:
        assert got is not None and got.name == expected and text[got.start:got.end] == expected


def _statements(module):
    return [(i.opcode, i.start, i.end, i.opcode_start, i.operand_start, i.operand_text, repr(i.guard),
             [(x.name, x.start, x.end) for x in i.labels], i.function.name if i.function else None)
            for i in module.instructions]


@pytest.mark.parametrize("path", FILES, ids=os.path.basename)
def test_statement_fast_paths_equal_the_general_statement_parser(path, monkeypatch):
    # the whole-statement matches for plain instructions and `.reg` lines build what the
    # general (tokenizing) path builds, spans included
    import re

    from ptxld.ptx import parser
    import random
    text = open(path, encoding="utf-8").read()
    random.seed(path)
    # and near-misses: labels, braces, `:` and `;` where the fast paths must give up or agree
    variants = [text]
    for _ in range(4):
        k = random.randrange(len(text) + 1)
        variants.append(text[:k] + random.choice(["L1: ", "$L__x:\n\t", "{", "}", ":", ";", "{%r1}",
                                                  "L1: L2: ", "L1:\n.loc 1 2 3\n"]) + text[k:])
    never = re.compile(r"(?!)")
    for variant in variants:
        fast = parse(variant, eager=False)
        with monkeypatch.context() as m:
            for name in ("_FAST_STMT", "_FAST_REG_STMT", "_FAST_LABEL", "_FAST_FUNCTION"):
                m.setattr(parser, name, never)
            general = parse(variant, eager=False)
        assert _statements(fast) == _statements(general)
        assert _items(fast) == _items(general)
        assert fast.comments == general.comments
        assert [(type(it).__name__, it.start, it.end) for it in fast.items] == \
               [(type(it).__name__, it.start, it.end) for it in general.items]
        assert _functions(fast) == _functions(general)
        declared = lambda m: sorted((v.name, v.start, v.end, v.type, v.range_count)  # noqa: E731
                                    for f in m.functions.values() if f.body
                                    for v in [*f.body.scope.names.values(), *f.body.scope.ranges.values()])
        assert declared(fast) == declared(general)
        assert [(d.code, d.start) for d in fast.diagnostics] == [(d.code, d.start) for d in general.diagnostics]


def _items(module):
    """Every block's items (kind and span, nested blocks inside) and labels, in order."""
    def walk(items):
        out = []
        for it in items:
            out.append((type(it).__name__, it.start, it.end))
            if type(it).__name__ == "Block":
                out.append(walk(it.items))
                out.append(sorted((n, lab.start) for n, lab in it.scope.labels.items()))
        return out
    return [(f.name, walk(f.body.items), sorted((n, lab.start) for n, lab in f.body.scope.labels.items()))
            for f in module.functions.values() if f.body is not None]


def test_what_the_fast_list_grammar_accepts_the_general_parser_parses_with_the_same_names():
    # operand lists of the kernels, and near-misses of them: an accepted list is valid PTX
    # operand syntax (the general parser finds no error) and names exactly what NAME_USE finds
    import random

    from ptxld.ptx.operands import FAST_LISTS, NAME_USE
    random.seed(11)
    texts = sorted({i.operand_text for p in FILES[:12]
                    for i in parse(open(p, encoding="utf-8").read(), eager=False).instructions})
    cases = list(texts)
    for t in texts:
        for _ in range(3):
            k = random.randrange(len(t) + 1)
            cases.append(t[:k] + random.choice(" ,;[]{}+-%._0x9aZ!|fdU") + t[k:] if random.random() < 0.7
                         else t[:k] + t[k + 1:])
    accepted = rejected = 0
    for t in cases:
        if ";" in t:
            continue
        if FAST_LISTS.fullmatch(t + ";") is None:
            rejected += 1
            continue
        accepted += 1
        module = parse(f".version 8.0\n.target sm_90\n.address_size 64\n.entry k()\n{{\nmov.u32 {t};\n}}\n",
                       eager=False)
        ins = module.instructions[0]
        operands, error = parse_operands(ins, fast=False)
        assert error is None, t
        names = {n for n in NAME_USE.findall(t)}
        found = set()
        stack = list(operands)
        while stack:
            op = stack.pop()
            name = getattr(op, "name", None)
            if isinstance(name, str):
                found.add(name)
            for attr in ("base", "first", "second"):
                if getattr(op, attr, None) is not None:
                    stack.append(getattr(op, attr))
            stack.extend(getattr(op, "items", None) or getattr(op, "args", None) or [])
        assert {n.partition(".")[0] for n in names} == {n.partition(".")[0] for n in found}, t
    assert accepted > 1000 and rejected > 500

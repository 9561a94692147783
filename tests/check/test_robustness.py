"""Bad input of every kind ends in diagnostics naming the place, never an exception or a hang."""
from __future__ import annotations

import random

import ptxld
from ptxld.checker import MAX_DIAGNOSTICS

HEAD = ".version 8.0\n.target sm_90\n.entry k() {\n.reg .b32 %r<4>;\n"


def test_a_one_megabyte_expression_is_an_error_on_its_line():
    text = HEAD + "add.s32 %r1, " + "+".join(["%r2"] * 250_000) + ";\n}\n"
    diags = ptxld.check(text)
    assert [(d.line, d.severity) for d in diags][:1] == [(5, "error")]
    assert "operators" in diags[0].message


def test_deep_nesting_is_an_error_on_its_line():
    text = HEAD + "mov.b32 %r1, " + "(" * 5000 + "1" + ")" * 5000 + ";\nmov.b32 %r1, " + "-" * 5000 + "1;\n}\n"
    diags = ptxld.check(text)
    assert [(d.line, d.code) for d in diags] == [(5, "PTX0001"), (6, "PTX0001")]


def test_long_lines_are_shown_as_a_window_around_the_error():
    from ptxld.checker.render import MAX_LINE, render_text
    text = HEAD + "add.s32 %r1, " + "+".join(["%r2"] * 20_000) + ";\n}\n"
    out = render_text(ptxld.check(text), text)
    assert max(len(line) for line in out.splitlines()) < MAX_LINE + 20


def test_garbage_is_capped_with_a_count_of_what_was_left_out():
    rnd = random.Random(7)
    text = "".join(rnd.choice("abc.%[]{};: \n0123456789xyz@!") for _ in range(300_000))
    diags = ptxld.check(text)
    assert len(diags) == MAX_DIAGNOSTICS + 1
    assert diags[-1].code == "PTX0006" and "not shown" in diags[-1].message
    assert all(d.line >= 1 and d.column >= 1 for d in diags)


def test_binary_and_invalid_utf8_files(tmp_path):
    from cli_runner import CliRunner

    from ptxld.cli import main
    elf = tmp_path / "k.cubin"
    elf.write_bytes(b"\x7fELF" + bytes(range(256)) * 4)
    latin = tmp_path / "latin.ptx"
    latin.write_bytes(HEAD.encode() + b"// caf\xe9\n}\n")
    r = CliRunner().invoke(main, ["check", str(elf)])
    assert r.exit_code == 2 and "ELF" in r.output
    r = CliRunner().invoke(main, ["check", str(latin)])
    # ptxas: "Unexpected non-ASCII character" (an error, exit 1)
    assert r.exit_code == 1 and "invalid UTF-8" in r.output and ":5:" in r.output

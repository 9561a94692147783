"""`ptxld check --fix`: the safe fixes of the rule pages' examples give modules that ptxas takes."""
from __future__ import annotations

import os

import pytest
from cli_runner import CliRunner

from ptxas_util import PTXAS, assemble, ptxas_version_ok
from ptxld.checker import all_rules, check_source
from ptxld.checker.fix import apply_fixes, fix_source
from ptxld.cli import main
from ptxld.diagnostics import Diagnostic

FIXABLE = [r for r in all_rules()
           if any(d.fix is not None for d in check_source(r.bad.source()) if d.code == r.code)]
EXAMPLE = os.path.join(os.path.dirname(__file__), "..", "..", "examples", "loads.ptx")


def test_some_rules_carry_a_fix():
    assert len(FIXABLE) >= 10


@pytest.mark.parametrize("rule", FIXABLE, ids=[r.code for r in FIXABLE])
def test_the_fix_removes_the_problem_or_is_withheld(rule):
    source = rule.bad.source()
    fixed, applied, diags = fix_source(source)
    assert diags == check_source(fixed)
    if applied:
        assert fixed != source
        assert rule.code not in {d.code for d in diags}, [(d.code, d.message) for d in diags]
    else:
        # withheld only because applying it adds a problem (e.g. `.v2` removed, braces left)
        blind, _ = apply_fixes(source, check_source(source))
        new = {(d.code, d.message) for d in check_source(blind)} - {
            (d.code, d.message) for d in check_source(source)}
        assert new and fixed == source


def test_most_fixes_verify():
    assert sum(fix_source(r.bad.source())[1] > 0 for r in FIXABLE) >= 10


H = ".version 8.0\n.target sm_80\n.address_size 64\n"
KERNEL = ".visible .entry k(.param .u64 p)\n{{\n.reg .b32 %r<4>;\n.reg .b64 %rd<4>;\n{}\nret;\n}}\n"


@pytest.mark.parametrize("source", [
    H + ".address_size 64\n" + KERNEL.format(""),          # the whole directive goes, not the keyword
    H + KERNEL.format("ld.mmio.relaxed.sys.global.v2.u32 {%r1, %r2}, [%rd1];"),  # braces would stay
    H + KERNEL.format("ld.global.v2.v2.u32 {%r1, %r2}, [%rd1];"),
    H + KERNEL.format("ld.volatile.global.ca.u32 %r1, [%rd1];"),
])
def test_a_fix_never_adds_a_problem(source):
    before = check_source(source)
    fixed, applied, after = fix_source(source)
    new = {(d.code, d.message) for d in after} - {(d.code, d.message) for d in before}
    assert not new
    assert len(after) < len(before) if applied else fixed == source
    if PTXAS is not None and applied and not [d for d in after if d.severity == "error"]:
        code, out = assemble(fixed)
        assert code == 0, out


@pytest.mark.ptxas
@pytest.mark.skipif(PTXAS is None, reason="ptxas not installed")
@pytest.mark.parametrize("rule", FIXABLE, ids=[r.code for r in FIXABLE])
def test_ptxas_takes_the_fixed_module(rule):
    fixed, _, diags = fix_source(rule.bad.source())
    if not ptxas_version_ok(fixed):
        pytest.skip("PTX newer than ptxas 13.0")
    code, out = assemble(fixed, compile_only="unified" in fixed, tries=3)  # as test_rules does
    assert (code == 0) == (not [d for d in diags if d.severity == "error"]), out


def _diag(start, end, fix):
    return Diagnostic("PTX0202", "error", "m", 1, 1, start, end, fix=fix)


def test_overlapping_fixes_wait_for_the_next_pass():
    text = "ld.global.global.ca.u32"  # .global 2-9, .global 9-16, .ca 16-19
    fixed, applied = apply_fixes(text, [_diag(16, 19, ""), _diag(2, 9, ""), _diag(9, 19, ".x")])
    assert (fixed, applied) == ("ld.x.u32", 2)  # the edit of 16-19 overlaps the one of 9-19


def test_cli_fixes_the_file_and_reports_what_is_left(tmp_path):
    path = tmp_path / "loads.ptx"
    original = open(EXAMPLE, encoding="utf-8").read()
    path.write_text(original, encoding="utf-8")
    before = [d for d in check_source(original) if d.severity == "error"]
    res = CliRunner().invoke(main, ["check", "--fix", str(path)])
    after = path.read_text(encoding="utf-8")
    assert after != original and "fixed 1 problem(s)" in res.output
    left = [d for d in check_source(after) if d.severity == "error"]
    assert len(left) == len(before) - 1 and res.exit_code == (1 if left else 0)
    # nothing left to fix: the file stays as it is
    again = CliRunner().invoke(main, ["check", "--fix", str(path)])
    assert path.read_text(encoding="utf-8") == after and "fixed" not in again.output


def test_cli_fix_of_standard_input_prints_the_fixed_text():
    original = open(EXAMPLE, encoding="utf-8").read()
    res = CliRunner().invoke(main, ["check", "--fix", "-"], input=original)
    fixed, _, _ = fix_source(original)
    assert res.stdout == fixed and "error[" in res.stderr and "fixed 1 problem(s)" in res.stderr


def test_cli_leaves_a_file_that_is_not_utf8_alone(tmp_path):
    path = tmp_path / "bad.ptx"
    data = open(EXAMPLE, "rb").read().replace(b"// ", b"// \xff", 1)
    path.write_bytes(data)
    res = CliRunner().invoke(main, ["check", "--fix", str(path)])
    assert path.read_bytes() == data and "not fixed" in res.output

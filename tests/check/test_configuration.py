"""Which rules run (`--select`/`--ignore`, configuration files) and suppression comments, read
as ruff reads its own: every rule's page example is the reference for what a rule reports."""
from __future__ import annotations

import pytest
from cli_runner import CliRunner

import ptxld
from ptxld.checker import SelectionError, all_rules, check_source
from ptxld.checker.fix import fix_source
from ptxld.checker.registry import Example
from ptxld.cli import main

RULES = all_rules()

# two problems ptxas reports: a cache operator with `.relaxed` (PTX0203) and a repeated space (PTX0202)
TWO = Example(body="ld.relaxed.gpu.global.ca.u32 %r1, [%rd0];\nld.global.global.u32 %r2, [%rd0];").source()


def codes(diags) -> list[str]:
    return sorted(d.code for d in diags)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_selecting_a_rule_alone_still_reports_it(rule):
    """Each checking function runs when one code it reports is selected."""
    assert {d.code for d in check_source(rule.bad.source(), select=[rule.code])} == {rule.code}
    assert rule.code not in {d.code for d in check_source(rule.bad.source(), ignore=[rule.code])}


def test_prefixes_and_the_most_specific_selector_wins():
    assert codes(check_source(TWO)) == ["PTX0202", "PTX0203"]
    assert codes(check_source(TWO, select=["PTX02"], ignore=["PTX0203"])) == ["PTX0202"]
    assert codes(check_source(TWO, select=["PTX0203"], ignore=["PTX02"])) == ["PTX0203"]
    assert codes(check_source(TWO, select=["PTX01"])) == []
    assert codes(check_source(TWO, select=["ALL"], ignore=["PTX0202"])) == ["PTX0203"]
    assert codes(check_source(TWO, select=["ptx0202, ptx0203"])) == ["PTX0202", "PTX0203"]


def test_syntax_errors_are_not_rules():
    text = Example(body="ld.global.u32 %r1, [%rd0;").source()
    assert "PTX0001" in {d.code for d in check_source(text, select=["PTX02"])}


@pytest.mark.parametrize("bad", ["PTX99", "PTX0999", "E501", "PTX00"])
def test_a_selector_that_selects_nothing_is_an_error(bad):
    with pytest.raises(SelectionError, match="unknown rule selector"):
        check_source(TWO, select=[bad])


def test_python_api():
    assert codes(ptxld.check(TWO, select=["PTX02"], ignore=["PTX0203"])) == ["PTX0202"]


# ------------------------------------------------------------------ suppression comments
def test_a_suppression_silences_its_code_on_its_line_only():
    text = TWO.replace("[%rd0];\n", "[%rd0];  // ptxld: ignore[PTX0203]\n", 1)
    assert codes(check_source(text)) == ["PTX0202"]
    # on the line before, as ruff's noqa, it silences nothing and says so
    text = TWO.replace("    ld.relaxed", "    // ptxld: ignore[PTX0203]\n    ld.relaxed", 1)
    assert codes(check_source(text)) == ["PTX0202", "PTX0203", "PTX0901"]


def test_a_file_suppression_silences_the_code_everywhere():
    text = TWO + "// ptxld: ignore-file[PTX0202, PTX0203]\n"
    assert codes(check_source(text)) == []
    assert codes(check_source(TWO + "// ptxld: ignore-file[PTX0301]\n")) == ["PTX0202", "PTX0203", "PTX0901"]


def test_unused_suppressions_and_their_fix():
    text = TWO.replace("[%rd0];\n", "[%rd0];  // ptxld: ignore[PTX0203, PTX0301]\n", 1)
    diags = check_source(text)
    assert codes(diags) == ["PTX0202", "PTX0901"]
    fixed, _, after = fix_source(text, select=["PTX09"])
    assert "// ptxld: ignore[PTX0203]\n" in fixed and codes(after) == []
    # whether a suppression is used does not depend on the selection
    assert codes(check_source(text, ignore=["PTX0301"])) == ["PTX0202", "PTX0901"]
    assert codes(check_source(text, select=["PTX0901"])) == ["PTX0901"]
    used = TWO.replace("[%rd0];\n", "[%rd0];  // ptxld: ignore[PTX0203]\n", 1)
    assert codes(check_source(used, select=["PTX0901"])) == []
    # a wholly unused comment goes, the instruction stays
    text = Example(body="ld.global.u32 %r1, [%rd0];  // ptxld: ignore[PTX0203]").source()
    fixed, applied, after = fix_source(text)
    assert applied == 1 and "ptxld" not in fixed and "ld.global.u32 %r1, [%rd0];" in fixed and not after


@pytest.mark.parametrize("comment", ["// ptxld: ignore[PTX203]", "// ptxld: ignore[]", "// ptxld: noqa",
                                     "// ptxld: ignore[PTX0001]", "// ptxld: ignore PTX0203"])
def test_malformed_suppressions_are_reported(comment):
    text = Example(body=f"ld.global.u32 %r1, [%rd0];  {comment}").source()
    assert codes(check_source(text)) == ["PTX0902"]


def test_a_syntax_error_cannot_be_silenced():
    text = Example(body="add.u32 %r1, %r2 %r3;  // ptxld: ignore[PTX0001]").source()
    diags = check_source(text)
    assert codes(diags) == ["PTX0001", "PTX0902"]
    assert "cannot be silenced" in next(d.message for d in diags if d.code == "PTX0902")


def test_suppressed_and_selected_rules_together():
    text = TWO.replace("[%rd0];\n", "[%rd0];  // ptxld: ignore[PTX0203]\n", 1)
    assert codes(check_source(text, ignore=["PTX09"])) == ["PTX0202"]
    assert codes(check_source(text, select=["PTX0203"])) == []


# ------------------------------------------------------------------ configuration files
def _run(args, cwd=None):
    return CliRunner().invoke(main, ["check", "--format", "json", *args])


def _codes_of(result) -> list[str]:
    import json
    return sorted(d["code"] for f in json.loads(result.output)["files"] for d in f["diagnostics"])


def test_pyproject_table_found_upwards(tmp_path):
    (tmp_path / "pyproject.toml").write_text('[tool.ptxld]\nselect = ["PTX02"]\nignore = ["PTX0203"]\n')
    sub = tmp_path / "kernels" / "deep"
    sub.mkdir(parents=True)
    (sub / "k.ptx").write_text(TWO)
    res = _run([str(sub / "k.ptx")])
    assert res.exit_code == 1 and _codes_of(res) == ["PTX0202"]
    # the command line comes after the file: its --select starts afresh
    assert _codes_of(_run(["--select", "PTX0203", str(sub / "k.ptx")])) == ["PTX0203"]
    assert _codes_of(_run(["--isolated", str(sub / "k.ptx")])) == ["PTX0202", "PTX0203"]


def test_ptxld_toml_comes_first_and_pyproject_without_table_is_passed_over(tmp_path):
    (tmp_path / "ptxld.toml").write_text('ignore = ["PTX0202"]\nstrict = true\n')
    sub = tmp_path / "a"
    sub.mkdir()
    (sub / "pyproject.toml").write_text('[project]\nname = "x"\n')
    (tmp_path / "pyproject.toml").write_text('[tool.ptxld]\nignore = ["PTX0203"]\n')
    (sub / "k.ptx").write_text(TWO)
    assert _codes_of(_run([str(sub / "k.ptx")])) == ["PTX0203"]


def test_strict_from_configuration(tmp_path):
    rule = next(r for r in RULES if r.isa_only)
    (tmp_path / "k.ptx").write_text(rule.bad.source())
    assert _run([str(tmp_path / "k.ptx")]).exit_code == 0
    (tmp_path / "ptxld.toml").write_text("strict = true\n")
    assert _run([str(tmp_path / "k.ptx")]).exit_code == 1


@pytest.mark.parametrize("content, message", [
    ('select = "PTX02"\n', "`select` must be a list"),
    ('selct = ["PTX02"]\n', "unknown key `selct`"),
    ('select = ["PTX99"]\n', "unknown rule selector `PTX99`"),
    ('select = [\n', "not valid TOML"),
])
def test_a_bad_configuration_names_the_file_and_the_cause(tmp_path, content, message):
    (tmp_path / "ptxld.toml").write_text(content)
    (tmp_path / "k.ptx").write_text(TWO)
    res = _run([str(tmp_path / "k.ptx")])
    assert res.exit_code == 2 and message in res.output and "ptxld.toml" in res.output
    assert "Traceback" not in res.output


def test_explicit_config_file(tmp_path):
    cfg = tmp_path / "elsewhere.toml"
    cfg.write_text('select = ["PTX0203"]\n')
    (tmp_path / "k.ptx").write_text(TWO)
    assert _codes_of(_run(["--config", str(cfg), str(tmp_path / "k.ptx")])) == ["PTX0203"]


def test_one_module_split_over_processes_gives_the_same_answer(monkeypatch):
    from ptxld.checker.parallel import check_source_parallel
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    kernel = TWO[TWO.index(".visible"):]
    text = TWO[:TWO.index(".visible")] + "".join(kernel.replace("kernel(", f"kernel{i}(") for i in range(4))
    text = text.replace("[%rd0];\n", "[%rd0];  // ptxld: ignore[PTX0203, PTX0111]\n", 1)
    for select, ignore in ((None, None), (["PTX02"], ["PTX0203"]), (["PTX09"], None)):
        seq = check_source(text, select=select, ignore=ignore)
        par = check_source_parallel(text, workers=2, select=select, ignore=ignore)
        assert [(d.code, d.line) for d in par] == [(d.code, d.line) for d in seq] != []


@pytest.mark.parametrize("table", ['[tool.ptxld]\nignore = ["PTX0202"]\n',
                                   '[tool]\nptxld = { ignore = ["PTX0202"] }\n',
                                   '[project]\nname = "x"\n\n[tool."ptxld"]\nignore = ["PTX0202"]\n'])
def test_every_spelling_of_the_table_is_found(tmp_path, table):
    (tmp_path / "pyproject.toml").write_text(table)
    (tmp_path / "k.ptx").write_text(TWO)
    assert _codes_of(_run([str(tmp_path / "k.ptx")])) == ["PTX0203"]


def test_standard_input_reads_the_configuration_of_the_working_directory(tmp_path, monkeypatch):
    (tmp_path / "ptxld.toml").write_text('select = ["PTX0203"]\n')
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["check", "--format", "json", "-"], input=TWO)
    assert _codes_of(res) == ["PTX0203"]

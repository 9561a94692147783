"""Renderers: text (caret positions checked against the source), JSON and SARIF (schemas)."""
from __future__ import annotations

import json
import os

import jsonschema

from ptxld.checker import check_source
from ptxld.checker.render import render_json, render_sarif, render_text, use_color

DATA = os.path.join(os.path.dirname(__file__), "data")
SRC = """.version 9.0
.target sm_90
.address_size 64
.visible .entry k(.param .u64 p)
{
    .reg .b32 %r<4>;
    .reg .b64 %rd<2>;
    ld.param.u64 %rd1, [p];
    ld.volatile.global.ca.u32 %r1, [%rd1];
    ld.global.v2.u32 {%r1, _}, [%rd1];
    ret;
}
"""


def _schema(name):
    with open(os.path.join(DATA, name)) as f:
        return json.load(f)


def test_text_points_carets_at_the_qualifier():
    diags = check_source(SRC, filename="kernel.ptx")
    out = render_text(diags, SRC)
    lines = out.splitlines()
    assert lines[0] == "error[PTX0203]: `.volatile` cannot be combined with cache operator `.ca`"
    assert lines[1].strip() == "--> kernel.ptx:9:23"
    src_line = SRC.splitlines()[8]
    shown = next(i for i, x in enumerate(lines) if x.endswith(src_line))
    prefix = lines[shown][: len(lines[shown]) - len(src_line)]
    carets = lines[shown + 1][len(prefix):]
    assert carets.index("^^^") == src_line.index(".ca")          # primary: `.ca`
    assert carets.index("-") == src_line.index(".volatile")       # secondary: `.volatile`
    assert "help: remove the cache operator: `ld.volatile.global.u32 %r1, [%rd1];`" in out
    assert "= note: PTX ISA 9.7.9.8 (ld)" in out
    assert "\x1b[" not in out


def test_text_colour_only_when_asked():
    diags = check_source(SRC)
    assert "\x1b[1;31m" in render_text(diags, SRC, color=True)


def test_no_color_env(monkeypatch):
    class Tty:
        def isatty(self):
            return True
    monkeypatch.setenv("NO_COLOR", "1")
    assert not use_color(Tty())
    monkeypatch.delenv("NO_COLOR")
    assert use_color(Tty())


def test_json_matches_schema_and_model():
    diags = check_source(SRC, filename="kernel.ptx")
    doc = json.loads(render_json([("kernel.ptx", diags)]))
    jsonschema.validate(doc, _schema("ptxld-diagnostics.schema.json"))
    first = doc["files"][0]["diagnostics"][0]
    assert (first["code"], first["line"], first["column"]) == ("PTX0203", 9, 23)
    assert SRC[first["start"]:first["end"]] == ".ca" and first["fix"] == ""
    assert doc["summary"]["error"] == 1 and doc["summary"]["warning"] == 1


def test_sarif_matches_schema():
    diags = check_source(SRC, filename="kernel.ptx")
    doc = json.loads(render_sarif([("kernel.ptx", diags)]))
    jsonschema.validate(doc, _schema("sarif-2.1.0-subset.schema.json"))
    assert doc["version"] == "2.1.0" and doc["$schema"].endswith("sarif-2.1.0.json")
    run = doc["runs"][0]
    ids = [r["id"] for r in run["tool"]["driver"]["rules"]]
    assert len(ids) == len(set(ids))
    res = run["results"][0]
    assert res["ruleId"] == "PTX0203" and res["level"] == "error"
    assert ids[res["ruleIndex"]] == "PTX0203"
    region = res["locations"][0]["physicalLocation"]["region"]
    assert (region["startLine"], region["startColumn"]) == (9, 23)
    assert res["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "kernel.ptx"
    assert run["results"][1]["level"] == "warning"

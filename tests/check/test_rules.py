"""Every rule's page examples are tests: `bad` triggers exactly its code, `good` does not.

The ptxas-marked test checks the same examples against NVIDIA ptxas 13.0: an error rule's bad
example is rejected by ptxas, every good example and every warning's bad example is accepted.
"""
from __future__ import annotations

import os
import re

import pytest

from ptxas_util import PTXAS, assemble, ptxas_version_ok
from ptxld.checker import all_rules, check_source
from ptxld.checker.docs import index_page, rule_page

RULES = all_rules()
DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "rules")


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_bad_example_triggers_exactly_its_code(rule):
    diags = check_source(rule.bad.source(), filename=f"{rule.code}.ptx")
    assert {d.code for d in diags} == {rule.code}, [(d.code, d.message) for d in diags]
    assert all(d.severity == rule.severity for d in diags)


@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_good_example_is_clean(rule):
    diags = check_source(rule.good.source())
    assert rule.code not in {d.code for d in diags}
    assert not [d for d in diags if d.severity == "error"], [(d.code, d.message) for d in diags]


@pytest.mark.parametrize("rule", [r for r in RULES if r.isa_only], ids=lambda r: r.code)
def test_isa_only_rules_are_errors_under_strict(rule):
    diags = check_source(rule.bad.source(), strict=True)
    assert {d.severity for d in diags if d.code == rule.code} == {"error"}


def test_codes_are_stable_and_grouped():
    for r in RULES:
        assert re.fullmatch(r"PTX0[1-9]\d\d", r.code)
        assert r.bad.source() != r.good.source()
    names = [r.name for r in RULES]
    assert len(names) == len(set(names))


def test_rule_pages_are_current():
    """docs/rules is generated from the registry (`python -m ptxld.checker.docs docs/rules`)."""
    for r in RULES:
        with open(os.path.join(DOCS, f"{r.code}.md")) as f:
            assert f.read() == rule_page(r), f"docs/rules/{r.code}.md is stale"
    with open(os.path.join(DOCS, "README.md")) as f:
        assert f.read() == index_page()


def test_rule_pages_quote_the_examples():
    for r in RULES:
        page = rule_page(r)
        for line in r.bad.shown().splitlines():
            assert line in page


@pytest.mark.ptxas
@pytest.mark.skipif(not PTXAS, reason="ptxas not installed")
@pytest.mark.parametrize("rule", RULES, ids=[r.code for r in RULES])
def test_examples_agree_with_ptxas(rule):
    for kind, ex in (("bad", rule.bad), ("good", rule.good)):
        src = ex.source()
        if not ptxas_version_ok(src):
            continue  # PTX ISA 9.1+: checked from the spec tables only
        rc, out = assemble(src, compile_only="unified" in src, tries=3)
        if rule.code == "PTX0701" and kind == "bad":
            assert rc in (139, -11), out
            continue
        rejects = kind == "bad" and rule.severity == "error"
        assert (rc != 0) == rejects, f"{rule.code} {kind}: ptxas rc={rc}\n{out}"

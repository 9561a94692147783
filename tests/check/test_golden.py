"""Golden PTX files with inline `// expect: CODE ...` annotations.

The expectations come from ptxas 13.0's behaviour recorded in shared/spec/ptxas-vs-seeds.md; the
ptxas-marked test re-checks them: ptxas rejects exactly the lines expected to carry an error (up to
its first fatal error, after which it stops).
"""
from __future__ import annotations

import glob
import os
import re
from collections import Counter

import pytest

from ptxas_util import PTXAS, assemble
from ptxld.checker import RULES, check_source

GOLDEN = sorted(glob.glob(os.path.join(os.path.dirname(__file__), "golden", "*.ptx")))
_EXPECT = re.compile(r"//\s*expect:\s*((?:PTX\d{4}\s*)+)")


def expectations(text: str) -> Counter:
    out = Counter()
    for n, line in enumerate(text.splitlines(), 1):
        m = _EXPECT.search(line)
        if m:
            for code in m.group(1).split():
                out[(n, code)] += 1
    return out


@pytest.mark.parametrize("path", GOLDEN, ids=os.path.basename)
def test_golden(path):
    text = open(path).read()
    got = Counter((d.line, d.code) for d in check_source(text, filename=path))
    assert got == expectations(text)


@pytest.mark.ptxas
@pytest.mark.skipif(not PTXAS, reason="ptxas not installed")
@pytest.mark.parametrize("path", GOLDEN, ids=os.path.basename)
def test_golden_against_ptxas(path):
    text = open(path).read()
    rc, out = assemble(text)
    error_lines = {n for (n, code) in expectations(text) if RULES[code].severity == "error"}
    reported = [(int(m.group(1)), m.group(2)) for m in
                re.finditer(r"line (\d+); (error|fatal)", out)]
    ptxas_lines = {n for n, _ in reported}
    assert (rc != 0) == bool(error_lines)
    assert ptxas_lines <= error_lines, f"ptxas rejects lines we accept: {sorted(ptxas_lines - error_lines)}"
    fatal = min((n for n, kind in reported if kind == "fatal"), default=10 ** 9)
    assert {n for n in error_lines if n <= fatal} <= ptxas_lines

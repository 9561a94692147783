"""A big module checked on two cores gives exactly the sequential diagnostics."""
from __future__ import annotations

import os

import pytest

from ptxld.checker import check_source
from ptxld.checker.parallel import check_source_parallel, function_bodies

KERNELS = os.path.join(os.path.dirname(__file__), "..", "kernels", "ptx", "sm_90")


def _module_with_errors() -> str:
    text = open(os.path.join(KERNELS, "programs_basic.ptx"), encoding="utf-8").read()
    # plant errors in several functions: an unknown qualifier and a misspelled opcode
    text = text.replace("ld.global.f32", "ld.global.zz.f32", 3).replace("add.s32", "addd.s32", 2)
    # a module-level error seen by every worker: reported once
    return text.replace(".address_size 64", ".address_size 64\n.global .u32 dup;\n.global .u32 dup;", 1)


def test_function_bodies_are_top_level_function_blocks():
    text = _module_with_errors()
    bodies = function_bodies(text)
    assert len(bodies) == text.count(".entry") + text.count("\n.func") - text.count(".entry;")
    for s, e in bodies:
        assert text[s - 1] == "{" and text[e] == "}"


@pytest.mark.parametrize("workers", [2, 3])
def test_parallel_equals_sequential(monkeypatch, workers):
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    text = _module_with_errors()
    seq = check_source(text, filename="m.ptx")
    par = check_source_parallel(text, filename="m.ptx", workers=workers)
    assert [(d.code, d.line, d.column, d.message) for d in par] == \
           [(d.code, d.line, d.column, d.message) for d in seq]
    assert sum(d.code == "PTX0109" for d in seq) == 2

"""Whole-ISA checking refuses nothing ptxas accepts in real code: every committed kernel (PTX
from nvcc 13.0, so accepted by ptxas 13.0 by construction) and every public corpus module that
ptxas 13.0 accepts is free of checker errors."""
from __future__ import annotations

import glob
import os
import shutil
import subprocess

import pytest

from ptxld.checker import check_source

HERE = os.path.dirname(__file__)
KERNELS = sorted(glob.glob(os.path.join(HERE, "..", "kernels", "ptx", "**", "*.ptx"), recursive=True))
# the public corpus sits beside the checkout (a worktree is one level deeper)
CORPUS_ROOT = next((p for p in (os.path.join(HERE, *[".."] * n, "shared", "corpus", "ptx") for n in (3, 4))
                    if os.path.isdir(p)), "")
CORPUS = sorted(glob.glob(os.path.join(CORPUS_ROOT, "**", "*.ptx"), recursive=True))


def _errors(path: str) -> list:
    with open(path, errors="replace") as f:
        return [d for d in check_source(f.read(), filename=path) if d.severity == "error"]


@pytest.mark.parametrize("path", KERNELS, ids=os.path.basename)
def test_committed_kernels_are_clean(path):
    errors = _errors(path)
    assert not errors, "\n".join(f"{d.line}: {d.code} {d.message}" for d in errors[:5])


def test_corpus_modules_ptxas_accepts_are_clean():
    exe = shutil.which("ptxas")
    if exe is None or not CORPUS:
        pytest.skip("ptxas or the public corpus is not available")
    flagged = [p for p in CORPUS if _errors(p)]
    assert len(flagged) < len(CORPUS) // 4, "the checker refuses most of the corpus"
    wrong = []
    for p in flagged:        # few: only these need ptxas's word
        r = subprocess.run([exe, "-arch=sm_75", p, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode == 0:
            d = _errors(p)[0]
            wrong.append(f"{os.path.relpath(p, CORPUS_ROOT)}:{d.line}: {d.code} {d.message}")
    assert not wrong, "ptxas accepts, ptxld refuses:\n" + "\n".join(wrong)

"""The heap tuning of emu/allocator.py: applied once on glibc (mallopt accepts the values),
left alone with PTXLD_KEEP_HEAP=0."""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

CODE = "from ptxld.emu.allocator import keep_heap; print(keep_heap(), keep_heap())"


def run(env_value):
    env = dict(os.environ)
    env.pop("PTXLD_KEEP_HEAP", None)
    if env_value is not None:
        env["PTXLD_KEEP_HEAP"] = env_value
    return subprocess.run([sys.executable, "-c", CODE], env=env, capture_output=True, text=True,
                          check=True).stdout.split()


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_applied_once_on_glibc():
    assert run(None) == ["True", "True"]


def test_opt_out():
    assert run("0") == ["False", "False"]

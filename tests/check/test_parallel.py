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


def _dies_in_a_child(job):
    if os.getpid() != _PARENT:
        os._exit(3)  # a child that dies without sending anything
    return job * 2


_PARENT = os.getpid()


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_share_whose_child_dies_is_redone_in_the_parent():
    from ptxld.checker.parallel import fork_map
    assert fork_map(_dies_in_a_child, [1, 2, 3]) == [2, 4, 6]


def test_skipped_bodies_are_parsed_empty_and_the_rest_is_unchanged():
    from ptxld.ptx.parser import parse
    text = _module_with_errors()
    bodies = function_bodies(text)
    skip = dict(bodies[1::2])
    full, part = parse(text, eager=False), parse(text, eager=False, skip_bodies=skip)
    assert [f.name for f in part.functions.values()] == [f.name for f in full.functions.values()]
    kept = [i for i in full.instructions if not any(s <= i.start < e for s, e in skip.items())]
    assert [(i.start, i.opcode) for i in part.instructions] == [(i.start, i.opcode) for i in kept]
    assert len(kept) < len(full.instructions)


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_dead_child_without_redo_gives_none():
    from ptxld.checker.parallel import fork_map
    assert fork_map(_dies_in_a_child, [1, 2, 3], redo=False) == [2, None, None]


def test_every_body_is_checked_by_some_process_however_the_claims_fall(monkeypatch):
    # a share whose partner never claims anything checks every body itself, and a
    # module-level fact (PTX0308 counted once without .address_size) stays exact
    from ptxld.checker.parallel import _check_share, _Claims
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    text = _module_with_errors()
    seq = check_source(text, filename="m.ptx")
    alone = _check_share((text, "m.ptx", False, _Claims(text.count("{")), None))
    assert [(d.code, d.line) for d in alone] == [(d.code, d.line) for d in seq]
    legacy = ".version 8.0\n.target sm_90\n" + "".join(
        f".entry k{i}()\n{{\n.reg .b32 %r<3>;\nld.global.u32 %r1, [%r2];\nst.global.u32 [%r2], %r1;\n}}\n"
        for i in range(8))
    seq = check_source(legacy, filename="m.ptx")
    assert sum(d.code == "PTX0308" for d in seq) == 1
    par = check_source_parallel(legacy, filename="m.ptx", workers=2)
    assert [(d.code, d.line) for d in par] == [(d.code, d.line) for d in seq]


def test_a_skipped_body_keeps_its_function_name_and_parameters():
    from ptxld.ptx.parser import parse
    text = _module_with_errors()
    bodies = function_bodies(text)
    module = parse(text, eager=False, skip_bodies=dict(bodies[:1]))
    first, *rest = [f for f in module.functions.values() if f.body is not None]
    full = parse(text, eager=False)
    twin = full.functions[first.name]
    assert not first.body.items and twin.body.items
    # the parameters stay: a call checked in this process is matched against them (PTX0810)
    assert [p.name for p in first.params] == [p.name for p in twin.params]
    assert all([p.name for p in f.params] == [p.name for p in full.functions[f.name].params] for f in rest)


@pytest.mark.parametrize("claimed", range(4))
def test_calls_into_a_body_another_process_checks_are_matched_against_its_declaration(
        monkeypatch, claimed):
    """Every split of the bodies gives the sequential verdict on a module whose kernels call
    .func definitions (a skipped callee once lost its parameters: a false PTX0810)."""
    from ptxld.ptx.parser import parse
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    text = open(os.path.join(KERNELS, "programs_math.ptx"), encoding="utf-8").read()
    assert "call.uni" in text
    bodies = function_bodies(text)
    skip = dict(bodies[claimed:claimed + 1])
    module = parse(text, eager=False, skip_bodies=skip)
    full = parse(text, eager=False)
    assert all(len(f.params) == len(full.functions[f.name].params) for f in module.functions.values())
    seq = [(d.code, d.line, d.message) for d in check_source(text)]
    assert not any(code == "PTX0810" for code, _, _ in seq)
    for workers in (2, 3, 4):
        par = check_source_parallel(text, workers=workers)
        assert [(d.code, d.line, d.message) for d in par] == seq


def _kernel_files() -> list[str]:
    root = os.path.join(os.path.dirname(__file__), "..", "kernels", "ptx")
    return sorted(os.path.join(d, n) for d, _, names in os.walk(root) for n in names if n.endswith(".ptx"))


@pytest.mark.parametrize("path", _kernel_files(), ids=os.path.basename)
def test_two_shares_of_every_kernel_file_give_the_sequential_diagnostics(path):
    """Each body parsed and checked by the share that takes it, the two shares merged: the
    sequential diagnostics, for every committed kernel file (with errors planted in it)."""
    from ptxld.checker import check_shared
    from ptxld.checker.parallel import _merged
    text = open(path, encoding="utf-8").read()
    planted = text.replace("ld.global.", "ld.global.zz.", 2).replace("add.s32", "addd.s32", 1)
    for source in (text, planted):
        bodies = function_bodies(source)
        seq = check_source(source, filename="m.ptx")
        for split in (0, 1):
            shares = [check_shared(source, bodies, lambda i, k=k: i % 2 == (k + split) % 2, filename="m.ptx")
                      for k in (0, 1)]
            par = _merged(source, shares, None, "m.ptx")
            assert [(d.code, d.start, d.end, d.message) for d in par] == \
                   [(d.code, d.start, d.end, d.message) for d in seq]


def test_more_function_headers_than_bodies_still_checks_each_body_once(monkeypatch):
    # the processes decide to share on headers counted in the text, then find the bodies
    # each for itself: prototypes only, or one body among them, give the sequential result
    monkeypatch.setattr("ptxld.checker.parallel.MIN_BYTES", 0)
    protos = "".join(f".extern .func f{i}(.param .b32 a);\n" for i in range(4))
    head = ".version 8.0\n.target sm_90\n.address_size 64\n" + protos
    body = ".visible .entry k()\n{\n.reg .b32 %r<3>;\nadd.u32 %r1, %r2;\nret;\n}\n"
    for text in (head, head + body):
        seq = check_source(text, filename="m.ptx")
        par = check_source_parallel(text, filename="m.ptx", workers=2)
        assert [(d.code, d.line, d.column) for d in par] == [(d.code, d.line, d.column) for d in seq]
    assert any(d.code == "PTX0804" for d in check_source_parallel(head + body, filename="m.ptx", workers=2))


def _bodies_brace_by_brace(text: str) -> list[tuple[int, int]]:
    """The bodies found character by character (the reference for `function_bodies`, which skips
    comments, strings and one-line brace groups without `;` in one regex)."""
    import re
    bodies, stack, statement, i, n = [], [], 0, 0, len(text)
    while i < n:
        if text.startswith("//", i):
            i = text.find("\n", i) if "\n" in text[i:] else n
        elif text.startswith("/*", i):
            close = text.find("*/", i + 2)
            i = n if close < 0 else close + 2
        elif text[i] == '"':
            j = i + 1
            while j < n and text[j] not in '"\n':
                j += 2 if text[j] == "\\" else 1
            i = j + 1 if j < n and text[j] == '"' else j
        elif text[i] == "{":
            # a function body: at module level, in a statement that names `.entry`/`.func` (after
            # the last `;`, one in a comment included: such a body is simply not split)
            region = text[statement:i]
            region = region[region.rfind(";") + 1:]
            header = not stack and re.search(r"\.(?:entry|func)\b", region) is not None
            stack.append((i, header))
            i += 1
        elif text[i] == "}":
            if stack:
                start, header = stack.pop()
                if header and not stack:
                    bodies.append((start + 1, i))
                if not stack:
                    statement = i + 1
            i += 1
        else:
            i += 1
    return bodies


def test_function_bodies_equal_a_brace_by_brace_scan():
    import glob
    import random
    root = os.path.join(os.path.dirname(__file__), "..", "..")
    paths = sorted(glob.glob(os.path.join(root, "tests", "kernels", "ptx", "*", "*.ptx")))
    paths += sorted(glob.glob(os.path.join(root, "..", "shared", "corpus", "ptx", "**", "*.ptx"),
                              recursive=True))[:150]
    random.seed(5)
    compared = 0
    for path in paths:
        text = open(path, encoding="utf-8", errors="replace").read()
        variants = [text]
        for _ in range(3):  # braces, comment and string marks dropped or added anywhere
            k = random.randrange(len(text) + 1)
            variants.append(text[:k] + random.choice(["{", "}", "//", "/*", '"', ";", "\n"]) + text[k:])
        for v in variants:
            assert function_bodies(v) == _bodies_brace_by_brace(v), path
            compared += 1
    assert compared > 150
    # where the two may differ: a body on one line with no `;` is left unsplit (checked whole)
    one_line = ".visible .entry k()\n{ L: }\n.visible .entry j()\n{\nret;\n}\n"
    assert function_bodies(one_line) == _bodies_brace_by_brace(one_line)[1:]
    # ... and one with a statement is split like any other
    one_line = ".visible .entry k()\n{ mov.b64 {%r1, %r2}, %rd1; ret; }\n"
    assert function_bodies(one_line) == _bodies_brace_by_brace(one_line) == [(21, 53)]

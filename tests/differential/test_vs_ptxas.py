"""ptxld's checker against NVIDIA ptxas 13.0 on the generated modules (the load family and every
instruction with a record: `isa.*` families).

* On the committed verdict cache (tests/differential/data/verdicts.jsonl.gz, made by
  `cd tools && python -m ptxas_oracle run`): every generated case has a ptxas verdict, and ptxld
  agrees with ptxas on accept/reject and on the line of the first error, up to the documented
  divergences (tests/differential/divergences.py, docs/divergences.md). No ptxas needed. By
  default on a fixed sample (every load-family case, one whole-ISA case in ISA_SAMPLE); every
  case under the `slow` marker (`pytest -m slow tests/differential`, or PTXLD_SLOW=1).
* Live: a fixed sample of cases is assembled again by the installed ptxas, batched as the cache
  was made, so the cache cannot drift from the tool it claims to record.
"""
from __future__ import annotations

import os
import random
import sys
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools"))

from ptxas_oracle import compare, generate, isa, verdicts  # noqa: E402
from ptxas_oracle import ptxas as oracle  # noqa: E402

pytestmark = pytest.mark.ptxas

MIN_CASES = 100_000
ISA_SAMPLE = 15            # the default run compares every 15th whole-ISA case (~10k)
LIVE_SAMPLE = 150
# While the checker was being built, missing the agreement targets was an expected failure
# (xfail). The checker now meets them, so a miss is a regression.
CHECKER_IN_PROGRESS = False


@pytest.fixture(scope="module")
def cache():
    return verdicts.load()


def test_generator_makes_complete_modules():
    cases = generate.all_cases()
    assert len(cases) >= MIN_CASES
    # every instruction with a record has its forms, near misses and operand swaps
    families = {c.family for c in cases}
    focus = {c.family: c.focus for c in cases}
    for spec in isa.records():
        for kind in ("forms", "mutations"):
            if kind == "forms" and f"isa.{spec.name}.forms" not in families:
                # its forms may already be spelled by a wider record's family (`fence` spells
                # `fence.mbarrier_init.release.cluster`)
                assert any(f.startswith("isa.") and spec.name in focus[f] for f in families), spec.name
                continue
            assert f"isa.{spec.name}.{kind}" in families, (spec.name, kind)
    # operand swaps on every record with an operand that is not an address, label or sized vector
    def swappable(spec):
        return any(not optional and not role.kinds & {"addr", "label", "func", "params"}
                   and not ("vec" in role.kinds and role.count)
                   for form in spec.forms for _, role, optional in spec.operand_roles(form))
    swapped = {s.name for s in isa.records() if f"isa.{s.name}.operands" in families}
    assert swapped == {s.name for s in isa.records() if swappable(s)}
    assert len(swapped) >= 90
    assert len({c.id for c in cases}) == len(cases)
    for c in cases[:: max(1, len(cases) // 500)]:
        lines = c.text.splitlines()
        if not c.header:                   # header.mutation cases spell their own
            assert lines[0].startswith(".version ") and lines[1] == f".target {c.target}"
            assert lines[2] == ".address_size 64"
        assert c.text.count(".entry ") == 1
        assert lines[c.focus_line - 1].strip() == c.focus.split("\n")[0].strip()
    targets = {c.target for c in cases}
    assert {"sm_20", "sm_72", "sm_75", "sm_90a", "sm_100f", "sm_120"} <= targets
    assert {c.version for c in cases} >= set(generate.VERSIONS)


def test_every_case_has_a_cached_verdict(cache):
    version = compare.cached_version(cache)
    missing = [c.id for c in generate.all_cases() if c.key(version) not in cache]
    assert not missing, (f"{len(missing)} cases lack a ptxas verdict (e.g. {missing[:5]}); "
                         "run `cd tools && python -m ptxas_oracle run`")
    verdict_counts = Counter(r["verdict"] for r in cache.values())
    # the product must exercise both sides of ptxas
    assert verdict_counts["accept"] > 2000 and verdict_counts["reject"] > 2000


def _sample() -> list:
    """Every load-family case and a fixed share of the whole-ISA cases."""
    cases = generate.all_cases()
    isa = [c for c in cases if c.family.startswith("isa.")]
    return [c for c in cases if not c.family.startswith("isa.")] + isa[::ISA_SAMPLE]


def _slow_selected(config) -> bool:
    return "slow" in (config.getoption("-m") or "") or os.environ.get("PTXLD_SLOW") == "1"


@pytest.fixture(scope="module")
def result():
    return compare.compare_all(_sample())


def test_checker_agrees_with_cached_ptxas_verdicts(result):
    _agrees(result, every_divergence_seen=False)


@pytest.mark.slow
def test_checker_agrees_on_every_case(request):
    if not _slow_selected(request.config):
        pytest.skip("the full comparison runs with `-m slow` (or PTXLD_SLOW=1)")
    full = compare.compare_all()
    assert full.metrics()["cases"] >= MIN_CASES
    _agrees(full, every_divergence_seen=True)


def test_ptxld_gives_its_own_verdict_where_ptxas_crashes(result):
    """ptxas segfaults on these (no verdict to match): ptxld reports the crash (PTX0701) or what
    is wrong with the module; it is never silent."""
    # the load family's crash cases (those of the whole-ISA families are compared as documented
    # divergences)
    crashes = [o for o in result.outcomes if o.ptxas_verdict == "crash" and not o.case.id.startswith("isa.")]
    assert len(crashes) >= 300
    silent = [o.case.id for o in crashes
              if not o.errors and not any(w.code == "PTX0701" for w in o.warnings)]
    assert not silent, silent[:10]
    for o in crashes:
        if ".v8." in o.case.focus and not o.errors:
            assert any(w.code == "PTX0701" for w in o.warnings), o.case.id


def _agrees(result, every_divergence_seen: bool):
    m = result.metrics()
    assert not m["missing_verdicts"]
    hits = result.divergence_hits
    if every_divergence_seen:
        # every documented divergence still describes something real
        dead = [d.id for d in compare.load_divergences() if not hits[d.id]]
        assert not dead, f"divergence entries that match no case: {dead}"
    text = compare.summary_text(result)
    ok = (m["verdict_agreement"] >= compare.VERDICT_TARGET
          and m["line_agreement"] >= compare.LINE_TARGET)
    if not ok and CHECKER_IN_PROGRESS:
        pytest.xfail("checker under construction; targets not met yet:\n" + text)
    bad = result.mismatches()[:10]
    assert ok, text + "\nfirst mismatches:\n" + "\n".join(
        f"{o.case.id}: {o.direction}: {compare.pattern_of(o)[1]}" for o in bad)
    # every difference is documented: a new one is a regression even inside the targets
    assert not bad, "undocumented differences from ptxas:\n" + "\n".join(
        f"{o.case.id}: {o.direction}: {o.case.focus[:80]}: ptxas {o.ptxas_message()!r}, "
        f"ptxld {o.ptxld_message()!r}" for o in bad)


def test_vector_type_warning_matches_ptxas_on_accepted_loads(result):
    # ptxas warns "Vector Type not specified properly" where `.v2`/`.v4` is not right before the
    # type: PTX0225, on the same lines, wherever ptxas accepts the module
    cases = 0
    for o in result.outcomes:
        if o.ptxas_verdict != "accept" or not o.case.id.startswith("ld."):
            continue
        theirs = {line for line, msg in o.ptxas["warnings"] if "Vector Type not specified" in msg}
        mine = {d.line for d in o.warnings if d.code == "PTX0225"}
        assert mine == theirs, (o.case.id, o.case.focus)
        cases += bool(theirs)
    assert cases >= 20


def _live_sample(cache, version):
    """A fixed sample of cases ptxas answers the same every time (no recorded crash, not a `.v8`
    load, which crashes ptxas only now and then): half drawn from five shared headers (so several
    kernels share one ptxas run), half from anywhere."""
    stable = [c for c in generate.all_cases()
              if (r := cache.get(c.key(version))) and r["verdict"] != "crash" and not r["crashes"]
              and not oracle.crash_prone(c)]
    rng = random.Random(20251121)
    rng.shuffle(stable)
    keys = list(dict.fromkeys(c.batch_key for c in stable))[:5]
    batched = [c for c in stable if c.batch_key in keys][: LIVE_SAMPLE // 2]
    rest = [c for c in stable if c.batch_key not in keys]
    return batched + rest[: LIVE_SAMPLE - len(batched)]


def test_live_ptxas_matches_the_cache(cache):
    exe = oracle.find_ptxas()
    if exe is None:
        pytest.skip("ptxas not found")
    version = oracle.ptxas_version(exe)
    cached = compare.cached_version(cache)
    if version != cached:
        pytest.skip(f"installed ptxas {version} is not the cached {cached}")
    sample = _live_sample(cache, version)
    live, _ = oracle.run_cases(sample, exe, workers=1)
    diffs = []
    for c in sample:
        want, got = cache[c.key(version)], live[c.id]
        got_errors = sorted(map(list, got.errors), key=str)
        if got.verdict != want["verdict"] or got_errors != sorted(want["errors"], key=str):
            diffs.append(f"{c.id}: cached {want['verdict']} {want['errors'][:2]}, "
                         f"live {got.verdict} {got_errors[:2]}")
    assert not diffs, "\n".join(diffs)

"""Every case of the kernel corpus, found in one place: each list named CASES* in cases.py and
in the cases_*.py modules beside it. The emulator tests, the manifest checks, the hardware
record and tools/hw/gpu_cases.py all read the corpus from here, so a new module or list reaches
every one of them."""
from __future__ import annotations

import importlib
import sys
from pathlib import Path

KERNELS = Path(__file__).resolve().parent
if str(KERNELS) not in sys.path:
    sys.path.insert(0, str(KERNELS))


def by_module() -> dict[str, list]:
    """module name (`cases`, `cases_sm90`, ...) -> its cases, in the order the module lists them."""
    out = {}
    for stem in ["cases"] + sorted(p.stem for p in KERNELS.glob("cases_*.py")):
        module = importlib.import_module(stem)
        out[stem] = [case for name, value in vars(module).items()
                     if name.startswith("CASES") and isinstance(value, list) for case in value]
    return out


def all_cases() -> list:
    return [case for cases in by_module().values() for case in cases]


def by_name() -> dict:
    found = {}
    for case in all_cases():
        assert case.name not in found, f"two cases named {case.name}"
        found[case.name] = case
    return found

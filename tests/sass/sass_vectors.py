"""Readers for the committed NVIDIA-tool vectors (made by tools/sass_groundtruth)."""
from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from pathlib import Path

DATA = Path(__file__).parent / "data"


@lru_cache(maxsize=None)
def load(name: str) -> tuple[dict, ...]:
    with gzip.open(DATA / name, "rt", encoding="utf-8") as f:
        return tuple(json.loads(line) for line in f if line.strip())


def words_ptxas():
    return load("words_ptxas.jsonl.gz")


def words_madeup():
    return load("words_madeup.jsonl.gz")


def lowering():
    return load("lowering_sm50.jsonl.gz")


def control_madeup():
    return load("control_madeup.jsonl.gz")


def registers_symbolic(text: str) -> str:
    """LdgInstruction text with register numbers and operand-reuse flags taken out."""
    return re.sub(r"\bR\d+\b", "R", text.replace(".reuse", ""))


def unguarded(text: str) -> str:
    return re.sub(r"^@!?P\w+\s+", "", text)

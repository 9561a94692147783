"""The committed cache of ptxas verdicts: one JSON object per line, gzip, sorted by key.

A record's key hashes the case's module text, `-arch`, options and the ptxas version
(`Case.key`), so a changed generator or another ptxas never reuses a stale verdict.
"""
from __future__ import annotations

import gzip
import io
import json
import os
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VERDICTS = Path(os.environ.get("PTXAS_ORACLE_VERDICTS")
                or ROOT / "tests" / "differential" / "data" / "verdicts.jsonl.gz")


def load(path: Path = VERDICTS) -> dict[str, dict]:
    if not path.exists():
        return {}
    with gzip.open(path, "rt") as fh:
        return {r["key"]: r for r in map(json.loads, fh)}


def save(records: dict[str, dict], path: Path = VERDICTS) -> None:
    """Deterministic bytes for equal content (sorted keys, gzip mtime 0)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    text = "".join(json.dumps(records[k], sort_keys=True, separators=(",", ":")) + "\n"
                   for k in sorted(records))
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0, compresslevel=9) as gz:
        gz.write(text.encode())
    path.write_bytes(buf.getvalue())

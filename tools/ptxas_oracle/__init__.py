"""ptxas as an oracle for ptxld's checker.

* `generate` — complete PTX modules built from ptxld's spec tables (the product over qualifiers,
  types, state spaces, address forms, register classes, targets and PTX versions, plus mutations).
* `ptxas` — running NVIDIA ptxas on batches of cases and recovering a verdict per case.
* `verdicts` — the committed cache of ptxas verdicts (tests/differential/data/verdicts.jsonl.gz).
* `compare` — ptxld's verdicts against the cached ones, grouped into a report.

Command line: `python -m ptxas_oracle {run,compare,report}` with `tools/` on `sys.path`
(see tools/ptxas_oracle/README.md).
"""

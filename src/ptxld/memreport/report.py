"""The memory report of one launch: figures per PTX source line and for the kernel, the cache
model's counts, and Nsight-Compute-style findings."""
from __future__ import annotations

from dataclasses import dataclass

from .picture import AccessGrid, access_png, access_svg

#: per-line figures, in the order the JSON and the table give them
COUNTS = ("executions", "threads", "requests", "sectors", "sectors_ideal", "bytes_requested",
          "wavefronts", "wavefronts_ideal", "shared_bytes", "l1_hits", "l1_misses", "l2_hits", "l2_misses",
          "dram_read_sectors", "dram_write_sectors")

MODEL_NOTE = ("L1/L2 figures come from a cache model (32-byte sectors, 128-byte lines, LRU within "
              "eviction-priority classes), not from a GPU: they show what the cache operators "
              "and hints change, not what a particular GPU measures.")


def _derived(r: dict) -> dict:
    r["excess_sectors"] = r["sectors"] - r["sectors_ideal"]
    r["bank_conflicts"] = r["wavefronts"] - r["wavefronts_ideal"]
    r["dram_sectors"] = r["dram_read_sectors"] + r["dram_write_sectors"]
    r["sectors_per_request"] = round(r["sectors"] / r["requests"], 3) if r["requests"] and r["sectors"] else 0.0
    r["efficiency"] = round(r["bytes_requested"] / (32 * r["sectors"]), 4) if r["sectors"] else None
    return r


def waste(r: dict) -> tuple:
    """Sort key, worst first: wasted transfers (excess sectors + bank-conflict wavefronts), then
    traffic (sectors + wavefronts), then DRAM sectors."""
    return (-(r["excess_sectors"] + r["bank_conflicts"]), -(r["sectors"] + r["wavefronts"]),
            -r["dram_sectors"], r["line"])


@dataclass
class Finding:
    rule: str                   # "uncoalesced-global-accesses" | "shared-bank-conflicts"
    title: str
    lines: list                 # PTX lines, worst first
    message: str
    cause: str
    fix: str

    def to_dict(self) -> dict:
        return dict(rule=self.rule, title=self.title, lines=self.lines, message=self.message,
                    cause=self.cause, fix=self.fix)

    def text(self) -> str:
        return f"{self.title}: {self.message}\n  cause: {self.cause}\n  fix: {self.fix}"


class Report:
    """`lines`: one dict per PTX source line with a memory instruction (keys: line, instruction,
    kind, hints (its cache qualifiers), spaces, COUNTS and the derived excess_sectors, bank_conflicts, dram_sectors,
    sectors_per_request, efficiency); `total`: the kernel's sums; `stats`: the launch statistics."""

    def __init__(self, kernel: str, filename: str, target: str, sm: int, config, lines, samples,
                 stats, source: str):
        self.kernel, self.filename, self.target, self.sm = kernel, filename, target, sm
        self.config = config
        self.lines = lines
        self.samples = samples          # line -> (lanes, addresses, sizes, space) of one warp
        self.stats = stats
        self.source = source
        total = {k: sum(r[k] for r in lines) for k in COUNTS}
        total["line"] = None
        self.total = _derived(total)

    @classmethod
    def build(cls, recorder, stats) -> "Report":
        by_line: dict[int, dict] = {}
        samples = {}
        for pc in sorted(recorder.pcs):
            st = recorder.pcs[pc]
            r = by_line.get(st.line)
            if r is None:
                r = by_line[st.line] = dict(line=st.line, instruction=st.text, kind=st.kind,
                                            hints=st.hints, spaces=[], **{k: 0 for k in COUNTS})
                samples[st.line] = st.sample
            else:
                r["instruction"] += "; " + st.text
            r["spaces"] = sorted(set(r["spaces"]) | st.spaces)
            for k in ("executions", "threads", "requests", "sectors", "sectors_ideal",
                      "bytes_requested", "wavefronts", "wavefronts_ideal", "shared_bytes"):
                r[k] += getattr(st, k)
            c = st.cache
            r["l1_hits"] += c.l1_hits
            r["l1_misses"] += c.l1_misses
            r["l2_hits"] += c.l2_hits
            r["l2_misses"] += c.l2_misses
            r["dram_read_sectors"] += c.dram_read
            r["dram_write_sectors"] += c.dram_write
        lines = [_derived(by_line[k]) for k in sorted(by_line)]
        prog = recorder.prog
        return cls(recorder.kernel.name, prog.filename, prog.target, recorder.sm, recorder.config,
                   lines, samples, stats, prog.module.source.text)

    # ------------------------------------------------------------------ views
    def line(self, n: int) -> dict:
        for r in self.lines:
            if r["line"] == n:
                return r
        raise KeyError(f"line {n} of {self.filename} has no memory instruction that executed")

    def access_grid(self, n: int) -> AccessGrid:
        """Which lane of one warp touched which sector (or shared bank) on PTX line n."""
        sample = self.samples.get(n)
        if sample is None:
            raise KeyError(f"line {n} of {self.filename} has no memory access that executed")
        return AccessGrid(sample, n, self.line(n)["instruction"])

    def access_svg(self, n: int) -> str:
        return access_svg(self.access_grid(n))

    def access_png(self, n: int) -> bytes:
        return access_png(self.access_grid(n))

    def worst_first(self) -> list[dict]:
        return sorted(self.lines, key=waste)

    def to_dict(self) -> dict:
        c = self.config
        return {
            "kernel": self.kernel, "file": self.filename, "target": self.target,
            "request_rule": f"sm_{self.sm}",
            "cache_model": {"preset": c.name, "l1_bytes": c.l1_size, "l1_ways": c.l1_ways,
                            "l2_bytes": c.l2_size, "l2_ways": c.l2_ways, "source": c.source,
                            "note": MODEL_NOTE},
            "lines": [dict(r) for r in self.lines],
            "total": dict(self.total),
            "findings": [f.to_dict() for f in self.findings()],
        }

    def findings(self) -> list[Finding]:
        out = []
        glob = [r for r in self.lines if r["excess_sectors"] > 0
                and set(r["spaces"]) & {".global", ".local"}]
        if glob:
            glob.sort(key=waste)
            excess = sum(r["excess_sectors"] for r in glob)
            total = sum(r["sectors"] for r in self.lines if set(r["spaces"]) & {".global", ".local"})
            worst = glob[0]
            out.append(Finding(
                "uncoalesced-global-accesses", "Uncoalesced global accesses", [r["line"] for r in glob],
                f"{excess} excessive sectors ({100 * excess / max(total, 1):.0f}% of the {total} "
                f"global and local sectors) on {len(glob)} line(s); worst: line {worst['line']} "
                f"(`{worst['instruction']}`), {worst['sectors_per_request']:g} sectors per request "
                f"where {worst['sectors_ideal'] / max(worst['requests'], 1):g} would do",
                "the active threads of a warp touch more 32-byte sectors than the bytes they need "
                "would fill: their addresses are strided, scattered or misaligned, so every "
                "sector moves data no thread asked for",
                "let consecutive lanes access consecutive addresses (structure of arrays instead of "
                "arrays of structures, index with the thread id in the fastest dimension), align "
                "the base to 32 bytes, or stage a strided tile through shared memory and read it "
                "back in the order it is used"))
        shared = [r for r in self.lines if r["bank_conflicts"] > 0]
        if shared:
            shared.sort(key=waste)
            conflicts = sum(r["bank_conflicts"] for r in shared)
            waves = sum(r["wavefronts"] for r in self.lines)
            ideal = sum(r["wavefronts_ideal"] for r in self.lines)
            requests = sum(r["requests"] for r in self.lines if r["wavefronts"])
            worst = shared[0]
            ways = worst["wavefronts"] / max(worst["wavefronts_ideal"], 1)
            out.append(Finding(
                "shared-bank-conflicts", "Shared bank conflicts", [r["line"] for r in shared],
                f"on average a {waves / max(ideal, 1):.1f}-way bank conflict across the {requests} "
                f"shared-memory requests: {conflicts} bank conflicts, "
                f"{100 * conflicts / max(waves, 1):.0f}% of the {waves} wavefronts, on "
                f"{len(shared)} line(s); worst: line {worst['line']} (`{worst['instruction']}`), "
                f"a {ways:.0f}-way conflict ({worst['wavefronts']} wavefronts where "
                f"{worst['wavefronts_ideal']} would do)",
                "several threads of one request phase access different 4-byte words in the same "
                "shared-memory bank (word address mod 32); a bank serves one word per wavefront, "
                "so the request is replayed once per extra word",
                "pad the row length of shared arrays by one word (e.g. [32][33] instead of "
                "[32][32]) or swizzle the column index (XOR with the row), so the lanes of a "
                "phase fall into different banks; reading the same word in several lanes is "
                "free (broadcast)"))
        return out

    def table(self, limit: int | None = None) -> str:
        cols = [("line", "line"), ("requests", "req"), ("sectors", "sect"),
                ("sectors_ideal", "ideal"), ("excess_sectors", "excess"), ("efficiency", "eff"),
                ("wavefronts", "wavef"), ("bank_conflicts", "confl"), ("shared_bytes", "bulk smem"),
                ("l1_hits", "L1 hit"),
                ("l1_misses", "L1 miss"), ("l2_hits", "L2 hit"), ("l2_misses", "L2 miss"),
                ("dram_sectors", "DRAM")]
        rows = self.worst_first()[:limit] if limit else self.worst_first()

        def cell(r, k):
            v = r[k]
            if k == "efficiency":
                return "-" if v is None else f"{100 * v:.0f}%"
            return "" if v is None else str(v)
        body = [[cell(r, k) for k, _ in cols] + [f"{r['instruction']}"] for r in rows]
        tot = dict(self.total)
        body.append([cell(tot, k) if k != "line" else "total" for k, _ in cols] + [""])
        heads = [h for _, h in cols] + ["instruction"]
        widths = [max(len(h), *(len(b[i]) for b in body)) for i, h in enumerate(heads[:-1])]
        fmt = "  ".join(f"{{:>{w}}}" for w in widths) + "  {}"
        out = [f"memory report: {self.kernel} ({self.filename}, {self.target}; requests by the "
               f"sm_{self.sm} rule; cache model: {self.config.name})",
               fmt.format(*heads), fmt.format(*("-" * w for w in widths), "-" * 11)]
        out += [fmt.format(*b) for b in body]
        out.append(f"note: {MODEL_NOTE}")
        for f in self.findings():
            out += ["", f.text()]
        return "\n".join(out)

    def __repr__(self) -> str:
        t = self.total
        return (f"<memory report {self.kernel}: {t['requests']} requests, {t['sectors']} sectors "
                f"({t['excess_sectors']} excess), {t['wavefronts']} wavefronts "
                f"({t['bank_conflicts']} conflicts)>")

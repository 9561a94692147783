"""The report's outputs: `ptxld run --memory-report` (table, worst first, findings), JSON, the
annotated-source HTML (PTX, and CUDA where .file/.loc map it), the access pictures."""
from __future__ import annotations

import json
import shutil
import struct
import subprocess
import xml.etree.ElementTree as ET
import zlib
from pathlib import Path

import numpy as np
import pytest
from cli_runner import CliRunner

import ptxld
from ptxld.cli import main
from ptxld.memreport.html import report_html, source_map

PTX = Path(__file__).resolve().parents[1] / "kernels" / "ptx" / "sm_80" / "memreport_access.ptx"


def _transpose_files(tmp_path):
    np.save(tmp_path / "in.npy", np.arange(1024, dtype=np.float32))
    np.save(tmp_path / "out.npy", np.zeros(1024, np.float32))
    return [str(tmp_path / "in.npy"), str(tmp_path / "out.npy")]


def test_cli_table_json_html_and_picture(tmp_path):
    shared_load = next(n for n, t in enumerate(PTX.read_text().splitlines(), 1)
                       if "ld.shared.f32" in t)           # transpose_unpadded's column read
    args = ["run", str(PTX), "-k", "transpose_unpadded", "-b", "32,32", *_transpose_files(tmp_path),
            "--memory-report", "--memory-report-json", str(tmp_path / "r.json"),
            "--memory-report-html", str(tmp_path / "r.html"),
            "--show-access", str(shared_load), "--show-access-out", str(tmp_path / "a.svg")]
    r = CliRunner().invoke(main, args)
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"),
                                  np.arange(1024, dtype=np.float32).reshape(32, 32).T.reshape(-1))
    rows = [ln for ln in r.output.splitlines() if ln.strip()[:1].isdigit() and "  " in ln]
    assert rows[0].split()[0] == str(shared_load)          # the 32-way conflict is the worst line
    assert "Shared bank conflicts" in r.output and "32-way" in r.output
    d = json.loads((tmp_path / "r.json").read_text())
    line = next(x for x in d["lines"] if x["line"] == shared_load)
    assert (line["wavefronts"], line["bank_conflicts"]) == (1024, 992)
    html = (tmp_path / "r.html").read_text()
    assert "transpose_unpadded" in html and "ld.shared.f32" in html
    assert "<script" not in html and "src=" not in html and "href=" not in html
    assert html.count("<svg") == 1                         # the finding's worst line, inline
    svg = ET.parse(tmp_path / "a.svg").getroot()
    rects = [e for e in svg.iter() if e.tag.endswith("rect")]
    filled = [e for e in rects if e.get("fill") not in ("#fff", "#f88", "#dfd")]
    assert len(filled) == 32                               # one word per lane
    x0 = {e.get("x") for e in filled}
    assert len(x0) == 1                                    # all in one bank column


def test_png_picture_of_a_strided_load(tmp_path):
    mod = ptxld.RawModule(path=PTX)
    rep = mod.get_function("load_f32_strided")(1, 32, [np.zeros(2048, np.float32), np.zeros(32, np.float32),
                                                         np.int32(0), np.int32(2)], memory_report=True)
    line = next(r["line"] for r in rep.lines if r["instruction"].startswith("ld.global"))
    grid = rep.access_grid(line)
    assert len(grid.columns) == 8                        # stride 2: 8 sectors, 4 lanes each
    assert all(sum(c is not None for c in row) == 1 for row in grid.cells)
    png = rep.access_png(line)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    w, h = struct.unpack(">II", png[16:24])
    assert (w, h) == (8 * 10, 32 * 10)
    idat = png[png.index(b"IDAT") + 4:png.index(b"IEND") - 8]
    assert len(zlib.decompress(idat)) == h * (1 + 3 * w)


def test_show_access_of_a_line_without_memory_access(tmp_path):
    r = CliRunner().invoke(main, ["run", str(PTX), "-k", "transpose_padded", "-b", "32,32",
                                  *_transpose_files(tmp_path), "--show-access", "1"])
    assert r.exit_code == 1
    assert "line 1" in r.output and "no memory access" in r.output


CUDA = """__global__ void k(const float* in, float* out) {
  int t = threadIdx.x;
  out[t] = in[32 * t];
}
"""

LOC_PTX = """.version 8.0
.target sm_80
.address_size 64
.file 1 "{cu}"
.visible .entry k(.param .u64 pin, .param .u64 pout)
{{
.reg .b64 %rd<8>; .reg .b32 %r<4>; .reg .f32 %f<2>;
ld.param.u64 %rd1, [pin];
ld.param.u64 %rd2, [pout];
.loc 1 2 3
mov.u32 %r1, %tid.x;
.loc 1 3 3
mul.wide.u32 %rd3, %r1, 128;
add.s64 %rd4, %rd1, %rd3;
ld.global.f32 %f1, [%rd4];
mul.wide.u32 %rd5, %r1, 4;
add.s64 %rd6, %rd2, %rd5;
st.global.f32 [%rd6], %f1;
ret;
}}
"""


def test_html_maps_ptx_lines_to_cuda_lines(tmp_path):
    cu = tmp_path / "k.cu"
    cu.write_text(CUDA)
    ptx = LOC_PTX.format(cu=cu)
    files, where = source_map(ptx)
    assert files == {1: str(cu)}
    assert where[15] == (1, 3) and where[11] == (1, 2) and 8 not in where
    mod = ptxld.RawModule(code=ptx)
    rep = mod.get_function("k")(1, 32, [np.arange(1024, dtype=np.float32), np.zeros(32, np.float32)],
                                memory_report=True)
    html = report_html(rep)
    assert f"CUDA source {cu}" in html
    cuda_part = html[html.index("CUDA source"):html.index("<h2>PTX")]
    row = next(r for r in cuda_part.split("<tr") if "out[t] = in[32 * t];" in r)
    cells = [c.split("<")[0] for c in row.split("<td>")[1:]]
    # line 3 holds the strided load (32 sectors, 4 ideal) and the store (4 sectors): 36 and 8
    assert cells[1:4] == ["36", "8", "28"]


def test_cli_cache_preset_and_picture_name_checks(tmp_path):
    files = _transpose_files(tmp_path)
    base = ["run", str(PTX), "-k", "transpose_padded", "-b", "32,32", *files]
    r = CliRunner().invoke(main, base + ["--cache-preset", "sm_90", "-q",
                                         "--memory-report-json", str(tmp_path / "r.json")])
    assert r.exit_code == 0, r.output
    model = json.loads((tmp_path / "r.json").read_text())["cache_model"]
    assert (model["preset"], model["l2_bytes"]) == ("sm_90", 50 * 1024 * 1024)
    r = CliRunner().invoke(main, base + ["--show-access", "270", "--show-access-out", "x.gif"])
    assert r.exit_code == 2 and ".svg or .png" in r.output
    r = CliRunner().invoke(main, base + ["--show-access-out", "x.svg"])
    assert r.exit_code == 2 and "--show-access LINE" in r.output
    r = CliRunner().invoke(main, base)                     # no report asked: the plain summary
    assert r.exit_code == 0 and "thread-instructions" in r.output and "memory report" not in r.output


@pytest.mark.nvcc
def test_html_maps_nvcc_lineinfo_ptx_to_the_cuda_source(tmp_path):
    if shutil.which("nvcc") is None:
        pytest.skip("nvcc not installed")
    cu = PTX.parents[2] / "cuda" / "memreport_access.cu"
    ptx = tmp_path / "li.ptx"
    subprocess.run(["nvcc", "-O3", "-ptx", "-std=c++17", "-arch=sm_80", "-lineinfo", str(cu),
                    "-o", str(ptx)], check=True)
    mod = ptxld.RawModule(path=ptx)
    rep = mod.get_function("transpose_unpadded")(1, (32, 32), [np.zeros(1024, np.float32),
                                                               np.zeros(1024, np.float32)],
                                                 memory_report=True)
    html = report_html(rep)
    cuda_part = html[html.index("CUDA source"):html.index("<h2>PTX")]
    row = next(r for r in cuda_part.split("<tr") if "out[y * 32 + x] = tile[x][y];" in r)
    cells = [c.split("<")[0] for c in row.split("<td>")[1:]]
    # SHOWN order: requests, sectors, ideal, excess, wavefronts, conflicts: the column read
    assert cells[4:6] == ["1024", "992"]


def test_cli_reports_the_shared_side_of_bulk_copies(tmp_path):
    """bulk_roundtrip (sm90_bulk.cu) through `ptxld run --memory-report`: its bulk load and bulk
    store each move 1 KiB of shared memory per CTA (4 CTAs), shown in the table's `bulk smem`
    column and the JSON's shared_bytes, beside their 32 global sectors per CTA."""
    ptx = PTX.parents[1] / "sm_90" / "sm90_bulk.ptx"
    x = np.arange(4 * 256, dtype=np.float32) - 300
    np.save(tmp_path / "in.npy", x)
    np.save(tmp_path / "out.npy", np.zeros(4 * 256, np.float32))
    r = CliRunner().invoke(main, ["run", str(ptx), "-k", "_Z14bulk_roundtripPKfPf", "-g", "4", "-b", "128",
                                  str(tmp_path / "in.npy"), str(tmp_path / "out.npy"), "--memory-report",
                                  "--memory-report-json", str(tmp_path / "r.json"),
                                  "--memory-report-html", str(tmp_path / "r.html")])
    assert r.exit_code == 0, r.output
    np.testing.assert_array_equal(np.load(tmp_path / "out.npy"),
                                  (x.reshape(4, 256) * 2 + np.arange(256, dtype=np.float32)).ravel())
    assert "bulk smem" in r.output
    d = json.loads((tmp_path / "r.json").read_text())
    bulk = [x for x in d["lines"] if x["instruction"].startswith(("cp.async.bulk.shared", "cp.async.bulk.global"))]
    assert [(b["shared_bytes"], b["sectors"]) for b in bulk] == [(4096, 128), (4096, 128)]
    assert d["total"]["shared_bytes"] == 8192
    html = (tmp_path / "r.html").read_text()
    assert "<th>bulk smem</th>" in html and "shared_bytes 8192" in html

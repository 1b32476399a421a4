"""Benchmark: the answer worker with the default model, over HTTP, on the golden set.

Starts the real worker (`python -m citavial.worker`, default Gemma 3 270M GGUF) as a subprocess on
127.0.0.1, sends 5 warm-up questions, then every golden question (or --limit N) one at a time,
timing each on the client side, and prints:

* latency: time to the `sources` event, to the first `token` event, total (p50 / p95 / max);
* worker RSS (VmRSS at the end, VmHWM peak) of the worker process;
* golden figures: answered (generated / extractive) / abstained by reason, sentences retracted by
  reason, guard cuts, invented refs (must be 0), literal quotes (must be 1.00: every quote equals
  its allowlist passage AND is found on the cited page as served), abstention false-positive
  (abstained on an answerable question) and false-negative (answered an unanswerable one)
  rates, cited-article precision.

Asserts nothing. The load average is printed with the figures: on a shared machine they are
measured under load and say so. Run: .venv/bin/python tests/bench/bench_worker.py [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from citavial.build.normalize import normalize  # noqa: E402
from citavial.worker.answer.allowlist import load_allowlist  # noqa: E402

WARMUP = ["¿Cuál es la velocidad máxima en autopista?", "¿Puedo aparcar en doble fila?",
          "¿Qué significa una línea continua?", "¿Cuándo hay que usar las luces de cruce?",
          "¿Es obligatorio el casco en moto?"]


def dist_dir(arg: str | None) -> Path:
    if arg:
        return Path(arg)
    dist = ROOT / "dist"
    if (dist / "index").is_dir() and (dist / "allowlist.json").is_file():
        return dist
    from datetime import date

    from citavial.build.pipeline import build_site
    out = Path(tempfile.mkdtemp(prefix="bench-worker-")) / "dist"
    build_site(corpus_dir=ROOT / "corpus", out_dir=out, as_of=date(2026, 11, 29),
               site_src=ROOT / "site_src")
    return out


def start_worker(dist: Path) -> tuple[subprocess.Popen, str]:
    proc = subprocess.Popen([sys.executable, "-m", "citavial.worker", "--port", "0", "--rate", "0",
                             "--dist", str(dist)], cwd=ROOT, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    m = re.search(r"http://127\.0\.0\.1:\d+", line)
    if not m:
        proc.kill()
        raise SystemExit(f"worker did not start: {line!r}")
    return proc, m.group(0)


def ask(url: str, question: str) -> tuple[list[tuple[str, dict]], dict]:
    """Events of one answer and client-side latencies (ms)."""
    req = urllib.request.Request(url + "/api/ask", data=json.dumps({"question": question})
                                 .encode(), headers={"Content-Type": "application/json"})
    t0 = time.perf_counter()
    lat = {"sources": None, "first_token": None, "total": None}
    events, buf = [], b""
    with urllib.request.urlopen(req, timeout=300) as resp:
        while True:
            chunk = resp.read1(65536)
            if not chunk:
                break
            buf += chunk
            while b"\n\n" in buf:
                block, buf = buf.split(b"\n\n", 1)
                head, data = block.decode().split("\n", 1)
                name = head[7:]
                ms = (time.perf_counter() - t0) * 1000
                if name == "sources":
                    lat["sources"] = ms
                if name == "token" and lat["first_token"] is None:
                    lat["first_token"] = ms
                events.append((name, json.loads(data[6:])))
    lat["total"] = (time.perf_counter() - t0) * 1000
    return events, lat


def rss_mb(pid: int) -> tuple[float, float]:
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text()
                  .splitlines() if ":" in line)
    return (int(fields["VmRSS"].split()[0]) / 1024, int(fields["VmHWM"].split()[0]) / 1024)


def pct(values: list[float], q: float) -> float:
    v = sorted(values)
    return v[min(len(v) - 1, max(0, round(q * (len(v) - 1))))]


def page_text(url: str, page: str, cache: dict) -> str:
    """The served page's searchable text, block by block (the gate's own text model: table cells
    are separate blocks, so a plain text_content() would glue "120" and "90" into "12090")."""
    if page not in cache:
        from citavial.build.gate.fragments import read_page
        body = urllib.request.urlopen(f"{url}/{page}", timeout=30).read()
        cache[page] = " ".join(b.norm for b in read_page(body).blocks)
    return cache[page]


def judge(golden: list[dict], results: list[tuple[dict, list]], allow, url: str) -> dict:
    f = Counter()
    invented, quotes, literal, cited, cited_ok = 0, 0, 0, Counter(), Counter()
    pages: dict[str, str] = {}
    for g, events in results:
        ev = dict((n, d) for n, d in events)   # last of each name
        done = ev["done"]
        pos = g["kind"] == "positive"
        f[f"{g['kind']}:{done['mode']}"] += 1
        if done["mode"] == "abstained":
            f[f"abstain:{done['outcome']}"] += 1
        for n, d in events:
            if n == "retract":
                f[f"retract:{d['reason']}"] += 1
        if done["guard"]:
            f[f"cut:{done['guard']['cut']}"] += 1
        sources = {s["n"]: s["ref"] for s in ev["sources"]["sources"]}
        for n, d in events:
            if n == "token" and "cite" in d and d["cite"] not in sources:
                invented += 1
        refs = list(sources.values()) + [c["ref"] for c in ev.get("citations", {})
                                         .get("citations", [])]
        invented += sum(1 for r in refs if r not in allow)
        expected_pages = {allow.get(r).page for r in g["expected"] if r in allow}
        for c in ev.get("citations", {}).get("citations", []):
            entry = allow.get(c["ref"])
            quotes += 1
            if entry and c["quote"] == entry.text and c["url"] == entry.url and \
                    normalize(c["quote"]) in page_text(url, entry.page, pages):
                literal += 1
            if pos:
                cited[done["mode"]] += 1
                cited_ok[done["mode"]] += bool(entry and entry.page in expected_pages)
    n_pos = sum(1 for g in golden if g["kind"] == "positive")
    n_neg = len(golden) - n_pos
    return {"counts": dict(sorted(f.items())), "invented_refs": invented,
            "quotes": quotes, "literal_quotes": literal / quotes if quotes else None,
            "abstention_fp": sum(v for k, v in f.items() if k == "positive:abstained") / n_pos,
            "abstention_fn": sum(v for k, v in f.items()
                                 if k.startswith("negative:") and k != "negative:abstained")
            / max(n_neg, 1),
            "cited_article_precision": {m: (cited_ok[m] / cited[m], cited[m]) for m in cited},
            "n_pos": n_pos, "n_neg": n_neg}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--limit", type=int, default=0, help="first N golden questions only")
    ap.add_argument("--dist", default=None, help="built site (default: dist/, else a fresh build)")
    ap.add_argument("--golden", default=str(ROOT / "golden" / "golden-v1.jsonl"))
    ap.add_argument("--json", default=None, help="also write the figures to this file")
    args = ap.parse_args()
    golden = [json.loads(x) for x in Path(args.golden).read_text(encoding="utf-8").splitlines()
              if x.strip()]
    if args.limit:
        golden = golden[: args.limit]
    dist = dist_dir(args.dist)
    allow = load_allowlist(dist / "allowlist.json")
    load0 = os.getloadavg()
    proc, url = start_worker(dist)
    try:
        health = json.loads(urllib.request.urlopen(url + "/health", timeout=30).read())
        for q in WARMUP:
            ask(url, q)
        lat: dict[str, list[float]] = {"sources": [], "first_token": [], "total": []}
        results = []
        for g in golden:
            events, one = ask(url, g["question"])
            results.append((g, events))
            for k, v in one.items():
                if v is not None:
                    lat[k].append(v)
        rss, hwm = rss_mb(proc.pid)
        fig = judge(golden, results, allow, url)   # reads the cited pages from the worker
    finally:
        proc.terminate()
        proc.wait(timeout=30)
    load1 = os.getloadavg()
    report(health, lat, rss, hwm, fig, len(golden), (load0, load1))
    if args.json:
        Path(args.json).write_text(json.dumps({"latency_ms": lat, "rss_mb": rss, "hwm_mb": hwm,
                                               "golden": fig, "load": [load0, load1]},
                                              ensure_ascii=False, indent=1), encoding="utf-8")
    return 0


def report(health, lat, rss, hwm, fig, n, loads) -> None:
    under = max(loads[0][0], loads[1][0]) > 1.5
    print(f"worker: model {health['model']['file']} ({health['mode']}), prompt "
          f"{health['prompt']['id']} v{health['prompt']['version']}, index "
          f"{health['index'].get('version')}")
    print(f"machine load average (1 min) before/after: {loads[0][0]:.2f} / {loads[1][0]:.2f}"
          + ("  -> MEASURED UNDER LOAD (other jobs running on this 2-core machine)"
             if under else ""))
    print(f"questions: {n} after 5 warm-ups (one at a time, over HTTP)")
    for k, target in (("sources", 50), ("first_token", 600), ("total", None)):
        v = lat[k]
        if v:
            print(f"  time to {k:12s} n={len(v):4d}  p50 {pct(v, .5):8.1f} ms  p95 "
                  f"{pct(v, .95):8.1f} ms  max {max(v):8.1f} ms"
                  + (f"   (target p95 <= {target} ms)" if target else ""))
    print(f"  worker RSS at end {rss:.0f} MB, peak {hwm:.0f} MB   (target <= 600 MB)")
    print(f"golden ({fig['n_pos']} positives, {fig['n_neg']} negatives):")
    for k, v in fig["counts"].items():
        print(f"  {k:40s} {v}")
    print(f"  invented refs                            {fig['invented_refs']}   (must be 0)")
    lq = fig["literal_quotes"]
    print(f"  literal quotes                           "
          f"{'n/a' if lq is None else f'{lq:.2f}'} of {fig['quotes']}   (must be 1.00)")
    print(f"  abstention false-positive rate           {fig['abstention_fp']:.3f}   "
          "(abstained on an answerable question; target <= 0.10)")
    print(f"  abstention false-negative rate           {fig['abstention_fn']:.3f}   "
          "(answered an unanswerable question; target <= 0.10)")
    for mode, (p, k) in fig["cited_article_precision"].items():
        print(f"  cited-article precision ({mode:10s})   {p:.3f} of {k} citations "
              "(cited page = a page of an expected passage)")


if __name__ == "__main__":
    sys.exit(main())

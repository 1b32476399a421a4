"""Load test of the answer worker: N concurrent clients, a fixed number of requests, loopback only.

    .venv/bin/python tests/bench/load_worker.py [--clients 20] [--requests 400] [--ask-every 8]
                                                [--rate 0] [--queue 4] [--no-model] [--url URL]

Starts `citavial serve --port 0` (unless --url points at a running worker on 127.0.0.1), then
``--clients`` threads share ``--requests`` requests: every ``--ask-every``-th is POST /api/ask
(read to the end of its SSE stream), the others GET /api/search. Each request has a deadline
(``--timeout``); a request that errors, times out, or whose stream ends without ``done`` is
*lost*. Prints status codes per endpoint, throughput, p50/p95/p99 latency, and the worker's RSS
(sampled every 0.2 s from /proc). Exit status 1 on any lost request or unexpected 5xx (503 from
a full queue and 429 from the rate limit are deliberate refusals, counted separately).
"""

from __future__ import annotations

import argparse
import http.client
import json
import re
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.parse import quote, urlsplit

ROOT = Path(__file__).resolve().parents[2]
QUESTIONS = [
    "¿Cuál es la velocidad máxima en autopista?", "¿Puedo conducir con auriculares?",
    "¿Cuándo es obligatorio el cinturón de seguridad?", "¿Dónde está prohibido adelantar?",
    "¿Qué tasa de alcohol está permitida?", "¿Cuándo hay que usar las luces de cruce?",
    "¿Quién tiene prioridad en una glorieta?", "¿Dónde está prohibido estacionar?",
]


def percentile(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, max(0, round(p / 100 * (len(s) - 1))))]


def one_request(host: str, port: int, i: int, ask_every: int, timeout: float,
                source: str | None = None) -> dict:
    q = QUESTIONS[i % len(QUESTIONS)]
    ask = ask_every > 0 and i % ask_every == 0
    endpoint = "ask" if ask else "search"
    t0 = time.perf_counter()
    conn = http.client.HTTPConnection(host, port, timeout=timeout,   # source: a loopback
                                      source_address=(source, 0) if source else None)  # client
    try:
        if ask:
            conn.request("POST", "/api/ask", json.dumps({"question": q}).encode(),
                         {"Content-Type": "application/json"})
        else:
            conn.request("GET", f"/api/search?q={quote(q)}&k=5")
        resp = conn.getresponse()
        body = b""
        deadline = t0 + timeout
        while True:   # read to the end, with an overall deadline (no hanging request)
            if time.perf_counter() > deadline:
                return {"endpoint": endpoint, "status": resp.status, "lost": "deadline",
                        "seconds": time.perf_counter() - t0}
            chunk = resp.read1(65536)
            if not chunk:
                break
            body += chunk
        lost = ""
        if resp.status == 200 and ask and b"event: done" not in body:
            lost = "stream ended without done"
        if resp.status == 200 and not ask and not json.loads(body).get("ok"):
            lost = "search not ok"
        return {"endpoint": endpoint, "status": resp.status, "lost": lost,
                "seconds": time.perf_counter() - t0}
    except Exception as err:   # noqa: BLE001 - every failure is a lost request, reported
        return {"endpoint": endpoint, "status": None, "lost": f"{type(err).__name__}: {err}",
                "seconds": time.perf_counter() - t0}
    finally:
        conn.close()


class RssSampler(threading.Thread):
    def __init__(self, pid: int | None, every: float = 0.2) -> None:
        super().__init__(daemon=True)
        self.pid, self.every, self.samples = pid, every, []
        self.stop = threading.Event()

    def run(self) -> None:
        while self.pid and not self.stop.is_set():
            try:
                status = Path(f"/proc/{self.pid}/status").read_text()
                self.samples.append(int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024)
            except (OSError, AttributeError):
                return
            self.stop.wait(self.every)


def start_worker(rate: float, queue: int, no_model: bool) -> tuple[subprocess.Popen, str]:
    cmd = [str(ROOT / ".venv" / "bin" / "citavial"), "serve", "--host", "127.0.0.1",
           "--port", "0", "--rate", str(rate), "--queue", str(queue)]
    if no_model:
        cmd.append("--no-model")
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        m = re.search(r"on (http://127\.0\.0\.1:\d+)/", line)
        if m:
            return proc, m.group(1)
        if not line and proc.poll() is not None:
            break
    proc.kill()
    raise RuntimeError("the worker did not start (no 'citavial worker on http://…' line)")


def run(clients: int = 20, requests: int = 400, ask_every: int = 8, timeout: float = 180,
        rate: float = 0, queue: int = 4, no_model: bool = False, url: str | None = None) -> dict:
    proc = None
    if url is None:
        proc, url = start_worker(rate, queue, no_model)
    parts = urlsplit(url)
    if parts.hostname not in ("127.0.0.1", "localhost", "::1"):
        raise SystemExit(f"refusing {url}: loopback only")
    sampler = RssSampler(proc.pid if proc else None)
    sampler.start()
    t0 = time.perf_counter()
    try:
        with ThreadPoolExecutor(max_workers=clients) as pool:
            results = list(pool.map(lambda i: one_request(parts.hostname, parts.port, i,
                                                          ask_every, timeout), range(requests)))
        wall = time.perf_counter() - t0
    finally:
        sampler.stop.set()
        sampler.join(2)
        if proc is not None:
            proc.terminate()
            try:
                proc.wait(10)
            except subprocess.TimeoutExpired:
                proc.kill()
    return summarize(results, wall, sampler.samples, clients)


def summarize(results: list[dict], wall: float, rss: list[float], clients: int) -> dict:
    codes = Counter((r["endpoint"], r["status"]) for r in results)
    lost = [r for r in results if r["lost"]]
    bad5xx = [r for r in results if r["status"] and r["status"] >= 500 and r["status"] != 503]
    lat = {}
    for ep in ("search", "ask"):
        ok = [r["seconds"] * 1000 for r in results if r["endpoint"] == ep and r["status"] == 200
              and not r["lost"]]
        lat[ep] = {"n": len(ok), "p50": percentile(ok, 50), "p95": percentile(ok, 95),
                   "p99": percentile(ok, 99)}
    return {"requests": len(results), "clients": clients, "wall_s": wall,
            "throughput_rps": len(results) / wall if wall else 0.0,
            "codes": {f"{ep} {st}": n for (ep, st), n in sorted(codes.items(), key=str)},
            "lost": len(lost), "lost_examples": [r["lost"] for r in lost[:5]],
            "unexpected_5xx": len(bad5xx), "latency_ms": lat,
            "rss_mb": {"samples": len(rss), "min": min(rss, default=0.0),
                       "max": max(rss, default=0.0), "last": rss[-1] if rss else 0.0}}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--requests", type=int, default=400)
    ap.add_argument("--ask-every", type=int, default=8, help="every Nth request is an ask")
    ap.add_argument("--timeout", type=float, default=180, help="per-request deadline (s)")
    ap.add_argument("--rate", type=float, default=0, help="worker --rate (0 = unlimited)")
    ap.add_argument("--queue", type=int, default=4)
    ap.add_argument("--no-model", action="store_true")
    ap.add_argument("--url", default=None, help="a running worker on 127.0.0.1")
    a = ap.parse_args(argv)
    s = run(a.clients, a.requests, a.ask_every, a.timeout, a.rate, a.queue, a.no_model, a.url)
    print(f"load_worker: {s['requests']} requests, {s['clients']} clients, "
          f"{s['wall_s']:.1f} s, {s['throughput_rps']:.1f} req/s")
    for k, n in s["codes"].items():
        print(f"  {k}: {n}")
    for ep, l in s["latency_ms"].items():
        print(f"  {ep} latency ms (200, n={l['n']}): p50 {l['p50']:.0f}  p95 {l['p95']:.0f}  "
              f"p99 {l['p99']:.0f}")
    r = s["rss_mb"]
    print(f"  worker RSS MB ({r['samples']} samples): min {r['min']:.0f}  max {r['max']:.0f}  "
          f"last {r['last']:.0f}")
    print(f"  lost: {s['lost']} {s['lost_examples']}  unexpected 5xx: {s['unexpected_5xx']}")
    return 1 if s["lost"] or s["unexpected_5xx"] else 0


if __name__ == "__main__":
    sys.exit(main())

"""Scale-out: Debian's nginx on 127.0.0.1 in front of two real `citavial serve` workers.

Two bounded bursts (they stop by themselves; loopback only) through nginx, using the load
script's request function (tests/bench/load_worker.py):

A. both workers up: every request answered; nginx spreads them over both; each worker's
   /metrics counts exactly the requests nginx's access log says it served, and the two add up
   to the burst.
B. one worker is stopped (SIGTERM) mid-burst: 0 requests lost — the only non-200 statuses are
   the deliberate 429 (nginx limit_req) and 503 (a full worker queue); the stopped worker
   finishes what it had and exits 0; nginx sends the rest to the survivor, whose /metrics again
   equals its access-log lines.
The nginx configuration is the one documented in docs/deploy.md ("Scale-out").
"""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from urllib.request import urlopen

import pytest
from nginx_run import start_nginx
from support import WAIT_S

pytestmark = [pytest.mark.adversarial, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[2]
NGINX = Path("/usr/sbin/nginx")
CONF = ROOT / "deploy" / "nginx-workers.conf"
API = ("/api/ask", "/api/search")


def _load_script():
    spec = importlib.util.spec_from_file_location("load_worker",
                                                  ROOT / "tests" / "bench" / "load_worker.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _start_worker(dist: Path) -> tuple[subprocess.Popen, int]:
    cmd = [sys.executable, "-m", "citavial.worker.cli", "serve", "--port", "0", "--rate", "0",
           "--queue", "8", "--no-model", "--dist", str(dist)]
    proc = subprocess.Popen(cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                            text=True)
    line = proc.stdout.readline()
    m = re.search(r"on http://127\.0\.0\.1:(\d+)/", line)
    if not m:
        proc.kill()
        pytest.fail(f"worker did not start: {line!r}")
    threading.Thread(target=proc.stdout.read, daemon=True).start()   # keep the pipe drained
    return proc, int(m.group(1))


def _api_requests(port: int) -> int:
    """citavial_requests_total over the API endpoints, from the worker's own /metrics."""
    text = urlopen(f"http://127.0.0.1:{port}/metrics", timeout=WAIT_S).read().decode()
    return sum(int(float(v)) for ep, v in re.findall(
        r'citavial_requests_total\{endpoint="([^"]+)",status="\d+"\} (\S+)', text) if ep in API)


def _access_log(path: Path, at_least: int = 0) -> list[tuple[str, str, str]]:
    """(uri, status, upstream address that answered) per proxied API request. nginx writes a
    line just after the response's last byte, so wait for ``at_least`` lines (up to WAIT_S: a
    bound for a broken nginx; the lines come as soon as the responses are sent)."""
    deadline = time.monotonic() + WAIT_S
    while len(path.read_text().splitlines()) < at_least and time.monotonic() < deadline:
        time.sleep(0.05)
    rows = []
    for line in path.read_text().splitlines():
        uri, status, upstream = line.split(" ", 2)
        rows.append((uri, status, upstream.split(", ")[-1]))
    return rows


@pytest.fixture(scope="module")
def cluster(tmp_path_factory, built_site):
    if not NGINX.exists():
        pytest.fail(f"{NGINX} is missing: run `apt-get install -y nginx` (tests/run_all.sh does)")
    tmp = tmp_path_factory.mktemp("nginx")
    os.chmod(tmp, 0o755)
    workers = [_start_worker(built_site) for _ in range(2)]

    def conf(port: int) -> str:
        text = CONF.read_text().replace("127.0.0.1:8001", f"127.0.0.1:{workers[0][1]}") \
            .replace("127.0.0.1:8002", f"127.0.0.1:{workers[1][1]}") \
            .replace("listen 127.0.0.1:8080", f"listen 127.0.0.1:{port}")
        text = text.replace("/var/log/nginx/citavial-api.log", str(tmp / "api.log")) \
            .replace("/srv/citavial/dist", str(built_site))
        head = (f"pid {tmp}/nginx.pid;\nerror_log {tmp}/error.log warn;\ndaemon off;\n"
                "worker_processes 1;\nevents { worker_connections 512; }\n")
        temps = "".join(f"{k}_temp_path {tmp}/{k};\n" for k in
                        ("client_body", "proxy", "fastcgi", "uwsgi", "scgi"))
        return head + "http {\n" + temps + text + "}\n"

    try:
        nginx, port = start_nginx(NGINX, tmp, conf)
    except BaseException:
        for proc, _ in workers:
            proc.kill()
        raise
    try:
        yield {"port": port, "workers": workers, "log": tmp / "api.log", "tmp": tmp}
    finally:
        nginx.send_signal(signal.SIGQUIT)
        for proc, _ in workers:
            if proc.poll() is None:
                proc.kill()
        nginx.wait(WAIT_S)


def _burst(port: int, n: int, on_progress=None) -> list[dict]:
    load = _load_script()
    done = Counter()

    def one(i: int) -> dict:
        # 8 loopback clients (127.0.0.2-9); every ask comes from two of them, which therefore
        # meet nginx's per-client limit: the deliberate 429s
        r = load.one_request("127.0.0.1", port, i, 4, WAIT_S, source=f"127.0.0.{2 + i % 8}")
        done["n"] += 1
        if on_progress:
            on_progress(done["n"])
        return r
    with ThreadPoolExecutor(max_workers=12) as pool:
        return list(pool.map(one, range(n)))


def _assert_none_lost(results: list[dict]) -> Counter:
    codes = Counter(r["status"] for r in results)
    lost = [r for r in results if r["lost"]]
    assert not lost, lost[:5]
    assert set(codes) <= {200, 429, 503}, codes
    return codes


def test_a_both_workers_share_and_metrics_add_up(cluster):
    (w1, p1), (w2, p2) = cluster["workers"]
    before = {p1: _api_requests(p1), p2: _api_requests(p2)}
    results = _burst(cluster["port"], 80)
    codes = _assert_none_lost(results)
    rows = _access_log(cluster["log"], 80)
    served = Counter(up for _, status, up in rows if status != "429")
    after = {p1: _api_requests(p1), p2: _api_requests(p2)}
    assert served[f"127.0.0.1:{p1}"] > 0 and served[f"127.0.0.1:{p2}"] > 0, served
    for p in (p1, p2):
        assert after[p] - before[p] == served[f"127.0.0.1:{p}"]
    assert sum(after.values()) - sum(before.values()) == 80 - codes.get(429, 0)
    assert len(rows) == 80 and 0 < codes.get(429, 0) < 20   # the limit bites, only on asks
    assert {uri for uri, status, _ in rows if status == "429"} == {"/api/ask"}


def test_b_stop_one_worker_mid_burst_loses_nothing(cluster):
    (w1, p1), (w2, p2) = cluster["workers"]
    lines_before = len(_access_log(cluster["log"]))
    survivor_before = _api_requests(p2)
    stopped = threading.Event()

    def stop_at_a_third(n: int) -> None:
        if n >= 40 and not stopped.is_set():
            stopped.set()
            w1.send_signal(signal.SIGTERM)
    results = _burst(cluster["port"], 120, stop_at_a_third)
    assert stopped.is_set()
    assert w1.wait(WAIT_S) == 0                     # drained and exited by itself
    codes = _assert_none_lost(results)
    rows = _access_log(cluster["log"], lines_before + 120)[lines_before:]
    assert len(rows) == 120
    served = Counter(up for _, status, up in rows if status != "429")
    assert served[f"127.0.0.1:{p1}"] > 0, served     # it did serve part of this burst
    assert _api_requests(p2) - survivor_before == served[f"127.0.0.1:{p2}"]
    assert served[f"127.0.0.1:{p1}"] + served[f"127.0.0.1:{p2}"] == 120 - codes.get(429, 0)

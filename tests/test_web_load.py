"""The page under load: 200 solves sent at once to a real server while ``GET /`` is timed.

Every solve is answered (computed, or refused at once with 429 and Retry-After when the
queue is full; never a 500) and the page answers all along. How long the page took is
reported (printed and recorded as a property of the test), not asserted: speed depends on
the machine. The server is ``bench serve`` in a process of its own, and the page is timed
from a third process, so neither the solves' client nor the timer slows the other."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
httpx = pytest.importorskip("httpx", reason="httpx is not installed")

from tests.web_server import bench_serve  # noqa: E402

pytestmark = pytest.mark.slow  # bench serve under 200 solves at once; tests/test_web.py is the fast tier's

HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
SOLVES = 200
TIMER = r"""
import json, sys, time, urllib.request
url, times = sys.argv[1], []
while sys.stdin.readline().strip() != "stop":
    started = time.perf_counter()
    with urllib.request.urlopen(url, timeout=600) as page:
        assert page.status == 200 and b"Chinese Poker" in page.read()
    times.append(time.perf_counter() - started)
    print("timed", flush=True)
print(json.dumps(times), flush=True)
"""


async def _solves(url: str, timer: subprocess.Popen) -> list[httpx.Response]:
    limits = httpx.Limits(max_connections=SOLVES + 10, max_keepalive_connections=SOLVES + 10)
    async with httpx.AsyncClient(base_url=url, limits=limits, timeout=600) as client:
        solves = [asyncio.create_task(client.post("/api/solve", json={"hand": HAND, "samples": 1000, "seed": i}))
                  for i in range(SOLVES)]
        loop = asyncio.get_running_loop()
        timed = 0
        while not all(s.done() for s in solves) or timed < 5:
            timer.stdin.write("go\n")
            timer.stdin.flush()
            await loop.run_in_executor(None, timer.stdout.readline)
            timed += 1
            await asyncio.sleep(0.02)
        return [s.result() for s in solves]


def test_the_page_answers_while_200_solves_are_sent_at_once(capsys, record_property):
    with bench_serve("--workers", "2", "--queue", "8") as url:
        timer = subprocess.Popen([sys.executable, "-c", TIMER, url + "/"], stdin=subprocess.PIPE,
                                 stdout=subprocess.PIPE, text=True)
        try:
            answers = asyncio.run(_solves(url, timer))
            page_times = json.loads(timer.communicate("stop\n", timeout=600)[0].splitlines()[-1])
        finally:
            if timer.poll() is None:
                timer.kill()
    codes = [a.status_code for a in answers]
    assert set(codes) <= {200, 429, 503} and 200 in codes, sorted(set(codes))
    assert all(a.headers["retry-after"].isdigit() for a in answers if a.status_code == 429)
    assert all(a.json()["arrangement"]["back"] == "AS KS QS JS TS" for a in answers if a.status_code == 200)
    page_times.sort()
    figure = (f"GET / during {SOLVES} concurrent solves: {len(page_times)} requests, median "
              f"{1000 * page_times[len(page_times) // 2]:.0f} ms, max {1000 * page_times[-1]:.0f} ms; solves: "
              f"{codes.count(200)} computed, {codes.count(429)} refused with 429, {codes.count(503)} over time")
    record_property("page_under_load", figure)
    with capsys.disabled():
        print(f"\n{figure}")

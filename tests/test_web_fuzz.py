"""The JSON API fuzzed from its own OpenAPI schema (schemathesis): whatever a request holds,
the answer is never a server error (500), and every answer is one the schema allows or a
documented refusal (400 bad input, 404 unknown session, 409 already scored, 413, 422, 429, 503)."""

from __future__ import annotations

import pytest

pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
schemathesis = pytest.importorskip("schemathesis", reason="schemathesis is not installed")
from hypothesis import HealthCheck, settings  # noqa: E402

from bench.web.app import Settings, create_app  # noqa: E402
from tests.web_server import serving  # noqa: E402

pytestmark = pytest.mark.slow  # a real server fuzzed with hundreds of requests; tests/test_web.py is the fast tier's

APP = create_app(Settings(workers=1, queue=64, solve_timeout=30, warm_up=False))
schema = schemathesis.openapi.from_dict(APP.openapi())


@pytest.fixture(scope="module")
def server():
    with serving(APP) as url:
        yield url


@schema.parametrize()
@settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_input_makes_a_server_error(case, server):
    response = case.call(base_url=server, timeout=120)
    assert response.status_code < 500 or response.status_code == 503, (response.status_code, response.text[:300])
    assert response.status_code != 500

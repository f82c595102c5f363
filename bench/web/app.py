"""The web app: thin routes over the same library calls as the command line.

``create_app(settings)`` builds a FastAPI app that serves the page (static files shipped in
the package: no build step, no CDN) and a JSON API documented at ``/docs``. The API reads
and writes no files: rules are presets only and bots are the registered ones; sizes and
``samples`` are bounded, and every solve runs in a worker thread with a time limit, so one
long request does not hold up the page.
"""

from __future__ import annotations

import asyncio
import secrets
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from fastapi import FastAPI, HTTPException, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, Field

STATIC = Path(__file__).with_name("static")
MAX_SAMPLES = 20_000
TEXT = 200  # longest hand or arrangement text taken


@dataclass(frozen=True)
class Settings:
    solve_timeout: float = 20.0  # seconds one solve or grade may take
    max_samples: int = MAX_SAMPLES


class SolveRequest(BaseModel):
    hand: str = Field(max_length=TEXT, description="13 cards, such as 'AS KS QS ...'")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    seed: int | None = Field(None, ge=0, lt=2**63)
    rules: str = Field("basic", max_length=60, description="a preset or presets joined with +")
    opponent: str = Field("table", max_length=60, description="a registered bot")
    players: int = Field(2, ge=2, le=4)
    top: int = Field(3, ge=0, le=10)


class GradeRequest(BaseModel):
    hand: str = Field(max_length=TEXT)
    arrangement: str = Field(max_length=TEXT, description="'FRONT / MIDDLE / BACK'")
    samples: int = Field(1000, ge=1, le=MAX_SAMPLES)
    seed: int | None = Field(None, ge=0, lt=2**63)
    rules: str = Field("basic", max_length=60)
    opponent: str = Field("table", max_length=60)
    players: int = Field(2, ge=2, le=4)


class CheckRequest(BaseModel):
    arrangement: str = Field(max_length=TEXT)


class DealRequest(BaseModel):
    seed: int | None = Field(None, ge=0, lt=2**63)


class SessionDeal(BaseModel):
    seed: int = Field(ge=0, lt=2**63)
    players: int = Field(2, ge=2, le=4)
    hand_number: int = Field(ge=0, le=7, description="0 to 7: a session is 8 hands")


class SessionHand(SessionDeal):
    bots: list[str] = Field(min_length=1, max_length=3)
    arrangement: str = Field(max_length=TEXT)
    rules: str = Field("basic", max_length=60)
    samples: int = Field(500, ge=1, le=MAX_SAMPLES)


def _rules(text: str):
    """Presets only: the web reads no files."""
    from solver.rules import PRESETS, Rules

    parts = [p.strip().lower() for p in text.split("+")]
    unknown = [p for p in parts if p not in PRESETS]
    if unknown:
        raise HTTPException(400, f"unknown rules {unknown[0]!r}; presets are {', '.join(PRESETS)} (join with +)")
    return Rules.parse(text)


def _bot(spec: str) -> str:
    """Registered bots only (with parameters): no plug-ins or processes from the web."""
    from bots import BOTS, parse_spec

    name, _ = parse_spec(spec)
    if name not in BOTS:
        raise HTTPException(400, f"unknown bot {name!r}; choose from {', '.join(sorted(BOTS))}")
    return spec


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or Settings()
    app = FastAPI(title="Chinese Poker solver", version="1",
                  description="Solve a hand, grade your own play, and play sessions against the bots.")

    @app.exception_handler(ValueError)
    async def bad_input(request: Request, error: ValueError) -> JSONResponse:
        # Cards, rules, bots and solver options raise ValueError subclasses with a readable message.
        return JSONResponse(status_code=400, content={"detail": str(error)})

    async def limited(function, *args, **kwargs):
        try:
            return await asyncio.wait_for(run_in_threadpool(function, *args, **kwargs), settings.solve_timeout)
        except asyncio.TimeoutError:
            raise HTTPException(503, f"the work took longer than {settings.solve_timeout:g} s; "
                                     "ask for fewer samples") from None

    @app.get("/", include_in_schema=False)
    async def page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        from bots import BOTS, describe_bot

        return {"bots": [{"name": n, "description": describe_bot(BOTS[n])} for n in sorted(BOTS)]}

    @app.post("/api/solve")
    async def solve(request: SolveRequest) -> dict[str, Any]:
        from bots import solve_hand

        rules, opponent = _rules(request.rules), _bot(request.opponent)
        solution = await limited(solve_hand, request.hand, opponent, samples=request.samples, seed=request.seed,
                                 players=request.players, top=request.top, rules=rules)
        return solution.to_dict()

    @app.post("/api/grade")
    async def grade(request: GradeRequest) -> dict[str, Any]:
        from bots import grade_hand

        rules, opponent = _rules(request.rules), _bot(request.opponent)
        graded = await limited(grade_hand, request.hand, request.arrangement, opponent, samples=request.samples,
                               seed=request.seed, players=request.players, rules=rules)
        return graded.to_dict()

    @app.post("/api/check")
    async def check(request: CheckRequest) -> dict[str, Any]:
        from solver import Arrangement, describe, foul_reason

        arrangement = Arrangement.parse(request.arrangement)
        return {"arrangement": arrangement.format(), "foul": foul_reason(arrangement) is not None,
                "reason": foul_reason(arrangement), "hands": [describe(row) for row in arrangement.rows]}

    @app.post("/api/deal")
    async def deal(request: DealRequest) -> dict[str, Any]:
        from solver import format_cards

        seed = request.seed if request.seed is not None else secrets.randbits(32)
        cards = np.random.default_rng(seed).permutation(52)[:13].tolist()
        return {"hand": format_cards(sorted(cards, reverse=True)), "seed": seed}

    @app.post("/api/session/deal")
    async def session_deal(request: SessionDeal) -> dict[str, Any]:
        from bench.tournament import HANDS_PER_SESSION, deal_table, dealer_of
        from solver import format_cards

        hands = deal_table(request.seed, request.hand_number, request.players)
        return {"hand": format_cards(sorted(hands[0].tolist(), reverse=True)), "seat": 0,
                "dealer": dealer_of(request.hand_number, request.players), "hands_per_session": HANDS_PER_SESSION}

    @app.post("/api/session/play")
    async def session_play(request: SessionHand) -> dict[str, Any]:
        if len(request.bots) != request.players - 1:
            raise HTTPException(400, f"{request.players} players need {request.players - 1} bots, "
                                     f"got {len(request.bots)}")
        rules = _rules(request.rules)
        specs = [_bot(b) for b in request.bots]
        return await limited(play_hand, request, specs, rules)

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    return app


def play_hand(request: SessionHand, specs: list[str], rules) -> dict[str, Any]:
    """One hand of a session: the bots set their cards, the table is settled pair by pair, and
    the player's play is graded (seat 0 is the player; bot k sits in seat k)."""
    from bench.tournament import deal_table, spec_key
    from bots import checked_arrangement, grade_hand, make_bot_for
    from solver import Arrangement, Card, SolveError, describe, foul_reason, score_pair

    hands = deal_table(request.seed, request.hand_number, request.players)
    mine = Arrangement.parse(request.arrangement)
    if sorted(int(c) for c in mine.cards) != sorted(hands[0].tolist()):
        raise SolveError("the arrangement holds other cards than the hand dealt to you")
    seats = [mine]
    for seat, spec in enumerate(specs, start=1):
        bot = make_bot_for(spec, rules)
        seed = np.random.SeedSequence(request.seed, spawn_key=(request.hand_number, seat, spec_key(spec)))
        seats.append(checked_arrangement(bot, tuple(Card(int(c)) for c in hands[seat]), np.random.default_rng(seed)))
    pairs = [[score_pair(a, b, rules) if i != j else 0 for j, b in enumerate(seats)] for i, a in enumerate(seats)]
    graded = grade_hand(hands[0].tolist(), mine, "table", samples=request.samples,
                        seed=request.seed * 8 + request.hand_number, players=request.players, rules=rules)
    names = ["you"] + specs
    return {
        "seats": [{"name": name, "arrangement": a.format(), "hands": [describe(r) for r in a.rows],
                   "foul": foul_reason(a)} for name, a in zip(names, seats)],
        "pairs": pairs,
        "scores": [sum(row) for row in pairs],
        "grade": graded.to_dict(),
    }

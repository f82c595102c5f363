"""Every JSON document a single-hand command prints, and every web API answer, validates
against its published schema (bench/records/schemas, copied to docs/schemas); each schema refuses a
document with a plausible mistake in it."""

from __future__ import annotations

import contextlib
import copy
import io
import json
from importlib.resources import files
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from bench.cli import main as bench_main
from bench.cli.solve import main as solve_main
from solver import is_foul

ROOT = Path(__file__).parents[1]
SCHEMAS = ROOT / "bench" / "records" / "schemas"
HAND = "AS KS QS JS TS 9H 9D 8C 7C 6D 5H 4S 2C"
BEST = "9H 9D 2C / 8C 7C 6D 5H 4S / AS KS QS JS TS"
FOUL = "AS KS QS / 9H 9D JS TS 8C / 7C 6D 5H 4S 2C"
SIX_PAIRS = "AS AH KS KH QS QH JS JH TS TH 9S 9H 2C"
NAMES = ("solve", "hand-grade", "grade", "arrange", "bots", "web-bots", "web-check", "web-deal", "web-session-start",
         "web-session-deal", "web-session-play")


def schema(name: str) -> dict:
    return json.loads((files("bench.records") / "schemas" / f"{name}.schema.json").read_text(encoding="utf-8"))


def errors(name: str, document) -> list[str]:
    validator = Draft202012Validator(schema(name))
    return [f"{'/'.join(map(str, e.absolute_path))}: {e.message}" for e in validator.iter_errors(document)]


def valid(name: str, document) -> None:
    assert document["document"] == name
    assert errors(name, document) == []


def _printed(main, argv: list[str], status: int = 0) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main(argv) == status
    return out.getvalue()


def test_each_schema_is_a_draft_2020_12_schema_and_the_docs_copy_is_identical():
    assert {f"{n}.schema.json" for n in NAMES} <= {p.name for p in SCHEMAS.glob("*.schema.json")}
    for name in NAMES:
        Draft202012Validator.check_schema(schema(name))
        assert (ROOT / "docs" / "schemas" / f"{name}.schema.json").read_bytes() == \
            (SCHEMAS / f"{name}.schema.json").read_bytes(), name


SOLVES = [
    ["--rules", "basic"],
    ["--rules", "2-4+royalties", "--players", "3", "--top", "0"],
    ["--rules", "1-6+royalties-win+naturals", "--players", "4", "--distinct", "values"],
    ["--rules", "naturals", "--top", "5"],
    ["--samples", "1"],  # a standard error of one sample is null
]


@pytest.mark.parametrize("options", SOLVES, ids=" ".join)
def test_solve_json_validates(options):
    hand = SIX_PAIRS if "naturals" in " ".join(options) else HAND
    valid("solve", json.loads(_printed(solve_main, [hand, "--samples", "60", "--seed", "3", "--json", *options])))


@pytest.mark.parametrize("arrangement, options", [(BEST, []), (FOUL, ["--rules", "2-4+royalties", "--players", "3"])])
def test_solve_grade_json_validates(arrangement, options):
    doc = json.loads(_printed(solve_main, [HAND, "--grade", arrangement, "--samples", "60", "--json", *options]))
    valid("hand-grade", doc)
    assert doc["foul"] is (arrangement == FOUL)


@pytest.mark.parametrize("rules", ["naturals", "2-4+royalties+naturals"])
def test_a_declared_natural_validates_in_every_grade_document(tmp_path, rules, client):
    """``solve --grade declare``, a ``bench grade`` line that declares, and the web's grade with
    ``declare``: no arrangement and no rows, said so by ``declared``."""
    doc = json.loads(_printed(solve_main, [SIX_PAIRS, "--grade", "declare", "--samples", "60", "--rules", rules, "--json"]))
    valid("hand-grade", doc)
    assert doc["declared"] is True and doc["arrangement"] is None and doc["rows"] is None
    path = tmp_path / "plays.txt"
    path.write_text(f"{SIX_PAIRS} | declare\n{HAND} | {BEST}\n")
    graded = json.loads(_printed(bench_main, ["grade", "--input", str(path), "--samples", "40", "--rules", rules, "--json"]))
    valid("grade", graded)
    assert sorted(h["declared"] for h in graded["hands"]) == [False, True]
    web = _answer(client, "/api/grade", {"hand": SIX_PAIRS, "declare": True, "samples": 50, "rules": rules})
    valid("hand-grade", web)
    assert web["declared"] is True and web["ev"] == web["natural_ev"]


@pytest.mark.parametrize("options", [[], ["--rules", "1-6+royalties", "--players", "4", "--seed", "11"]])
def test_bench_grade_json_validates_with_fouls_and_a_malformed_line(tmp_path, options):
    path = tmp_path / "plays.txt"
    path.write_text(f"{HAND} | {BEST}\n# a comment\nAS KS | x\n{HAND} | {FOUL}\n")
    doc = json.loads(_printed(bench_main, ["grade", "--input", str(path), "--samples", "40", "--json", *options], 2))
    valid("grade", doc)
    assert doc["hand_count"] == 2 and doc["malformed_line_count"] == 1 and [h["foul"] for h in doc["hands"]] == [True, False]
    seed = int(options[-1]) if options else 0
    assert [h["seed"] for h in doc["hands"]] == [seed + 2, seed]  # the rule the document states: seed + k


@pytest.mark.parametrize("options", [["--bot", "greedy"], ["--bot", "random", "--rules", "naturals", "--seed", "4"]])
def test_bench_arrange_json_lines_validate(tmp_path, options):
    path = tmp_path / "hands.txt"
    path.write_text(f"{HAND}\nAS KS QS\n{SIX_PAIRS}\n")
    lines = _printed(bench_main, ["arrange", "--input", str(path), "--json", *options], 2).splitlines()
    assert len(lines) == 2
    for line in lines:
        valid("arrange", json.loads(line))
    one = json.loads(_printed(bench_main, ["arrange", HAND, "--json", *options]))
    valid("arrange", one)
    assert one["line"] is None


def test_an_arrange_record_says_which_table_played():
    """``bot`` is the spec as given; ``bot_params`` every parameter, so that ``table`` with and
    without card removal cannot be told apart by name alone but are by their record."""
    default = json.loads(_printed(bench_main, ["arrange", HAND, "--json", "--bot", "table"]))
    plain = json.loads(_printed(bench_main, ["arrange", HAND, "--json", "--bot", "table:removal=false:rules=2-4"]))
    coupled = json.loads(_printed(bench_main, ["arrange", HAND, "--json", "--bot", "table:rules=2-4"]))
    uncoupled = json.loads(_printed(bench_main, ["arrange", HAND, "--json", "--bot", "table:rules=2-4:coupling=false"]))
    for doc in (default, plain, coupled, uncoupled):
        valid("arrange", doc)
    assert default["bot_params"] == {"tables": None, "rules": "basic", "removal": True, "coupling": True}
    assert plain["bot_params"] == {"tables": None, "rules": "2-4", "removal": False, "coupling": True}
    assert coupled["bot_params"] == {"tables": None, "rules": "2-4", "removal": True, "coupling": True}
    assert uncoupled["bot_params"] == {"tables": None, "rules": "2-4", "removal": True, "coupling": False}


@pytest.fixture(scope="module")
def client():
    pytest.importorskip("fastapi", reason="the web extra (fastapi) is not installed")
    from fastapi.testclient import TestClient

    from bench.web.app import Settings, create_app

    with TestClient(create_app(Settings(allowed_hosts=("testserver",), workers=1))) as client:
        yield client


def _answer(client, path: str, body: dict | None = None) -> dict:
    done = client.get(path) if body is None else client.post(path, json=body)
    assert done.status_code == 200, done.text
    return done.json()


@pytest.mark.slow
def test_web_answers_validate(client):
    valid("web-bots", _answer(client, "/api/bots"))
    valid("web-deal", _answer(client, "/api/deal", {"seed": 3}))
    valid("web-check", _answer(client, "/api/check", {"arrangement": BEST}))
    assert _answer(client, "/api/check", {"arrangement": FOUL})["foul"] is True
    valid("web-check", _answer(client, "/api/check", {"arrangement": FOUL}))
    for rules, players in (("basic", 2), ("2-4+royalties", 3), ("1-6+naturals", 4)):
        valid("solve", _answer(client, "/api/solve", {"hand": HAND, "samples": 50, "rules": rules, "players": players}))
        for arrangement in (BEST, FOUL):
            valid("hand-grade", _answer(client, "/api/grade", {"hand": HAND, "arrangement": arrangement, "samples": 50,
                                                               "rules": rules, "players": players}))


@pytest.mark.parametrize("rules, bots", [("basic", ["greedy"]), ("2-4+royalties+naturals", ["table", "random", "greedy"])])
def test_web_session_answers_validate(client, rules, bots):
    started = _answer(client, "/api/session/start", {"seed": 9, "bots": bots, "rules": rules})
    valid("web-session-start", started)
    for number in (0, 1):
        deal = _answer(client, "/api/session/deal", {"session": started["session"], "hand_number": number})
        valid("web-session-deal", deal)
        cards = deal["hand"].split()
        if number == 0:  # the strongest cards in the back
            arrangement = f"{' '.join(cards[10:])} / {' '.join(cards[5:10])} / {' '.join(cards[:5])}"
        else:  # the strongest in front: a foul for most hands
            arrangement = f"{' '.join(cards[:3])} / {' '.join(cards[3:8])} / {' '.join(cards[8:])}"
        played = _answer(client, "/api/session/play", {"session": started["session"], "hand_number": number,
                                                       "samples": 50, "arrangement": arrangement})
        valid("web-session-play", played)
        assert played["seats"][0]["foul"] is is_foul(arrangement)


def _solve_document() -> dict:
    return json.loads(_printed(solve_main, [HAND, "--samples", "30", "--seed", "1", "--json", "--rules", "royalties"]))


def _grade_document() -> dict:
    return json.loads(_printed(solve_main, [HAND, "--grade", FOUL, "--samples", "30", "--seed", "1", "--json"]))


def _renamed(doc: dict, old: str, new: str) -> dict:
    return {new if k == old else k: v for k, v in doc.items()}


def _without(doc: dict, key: str) -> dict:
    return {k: v for k, v in doc.items() if k != key}


WRONG = {
    "missing schema_version": lambda d: _without(d, "schema_version"),
    "an older schema_version": lambda d: d | {"schema_version": d["schema_version"] - 1},
    "another document's name": lambda d: d | {"document": "results"},
    "an unknown field": lambda d: d | {"comment": "x"},
}


@pytest.mark.parametrize("wrong", WRONG)
@pytest.mark.parametrize("name", ["solve", "hand-grade"])
def test_a_schema_refuses_a_wrong_document(name, wrong):
    doc = _solve_document() if name == "solve" else _grade_document()
    assert errors(name, doc) == []
    assert errors(name, WRONG[wrong](doc))


def test_the_solve_schema_refuses_old_names_and_shapes():
    doc = _solve_document()
    for old, new in (("samples", "sample_count"), ("players", "player_count"), ("legal_splits", "legal_split_count")):
        assert errors("solve", _renamed(doc, new, old)), old
    flat = copy.deepcopy(doc)
    flat["ev_parts"]["per_opponent"] |= flat["ev_parts"]["per_opponent"].pop("rows")  # rows not nested
    assert errors("solve", flat)
    text = doc | {"arrangement": " / ".join(doc["arrangement"].values())}  # an arrangement as one string
    assert errors("solve", text)
    short = copy.deepcopy(doc)
    short["rows"]["front"]["cards"] = "9H 9D"
    assert errors("solve", short)


def test_the_grade_schemas_refuse_a_foul_as_text():
    doc = _grade_document()
    assert doc["foul"] is True
    assert errors("hand-grade", doc | {"foul": doc["foul_reason"]})
    assert errors("hand-grade", doc | {"foul_reason": None})  # a foul says why
    assert errors("hand-grade", doc | {"foul": False})  # a reason with no foul
    assert errors("hand-grade", _renamed(doc, "foul_reason", "reason"))


def test_the_grade_schema_refuses_a_count_where_a_list_belongs(tmp_path):
    path = tmp_path / "plays.txt"
    path.write_text(f"{HAND} | {FOUL}\n")
    doc = json.loads(_printed(bench_main, ["grade", "--input", str(path), "--samples", "30", "--json"]))
    assert errors("grade", doc) == []
    assert errors("grade", doc | {"hands": 1})  # hands is a list; the count is hand_count
    assert errors("grade", _without(doc, "seed"))
    assert errors("grade", _without(doc, "schema_version"))
    hand = doc["hands"][0]
    assert errors("grade", doc | {"hands": [hand | {"foul": hand["foul_reason"]}]})


def test_the_arrange_and_web_schemas_refuse_wrong_documents():
    line = json.loads(_printed(bench_main, ["arrange", FOUL.replace(" /", ""), "--bot", "random", "--json"]))
    assert errors("arrange", line) == []
    assert errors("arrange", line | {"foul": "fouled"})
    assert errors("arrange", _without(line, "schema_version"))
    assert errors("arrange", _without(line, "bot_params"))  # a record says what the bot played with
    assert errors("arrange", _without(line, "arrangement") | line["arrangement"])  # rows flat at the top level
    check = {"schema_version": 1, "document": "web-check", "arrangement": dict(zip(("front", "middle", "back"),
             BEST.split(" / "))), "foul": False, "foul_reason": None,
             "rows": {r: {"hand": "x"} for r in ("front", "middle", "back")}}
    assert errors("web-check", check) == []
    assert errors("web-check", check | {"foul": None})
    assert errors("web-check", _renamed(check, "foul_reason", "reason"))
    assert errors("web-check", check | {"hands": ["x", "x", "x"]})
    assert errors("web-deal", {"schema_version": 1, "document": "web-deal", "hand": HAND})  # no seed
    start = {"schema_version": 1, "document": "web-session-start", "session": "k", "seed": None, "bots": ["greedy"],
             "rules": "basic", "player_count": 2, "hand_count": 8}
    assert errors("web-session-start", start) == []
    assert errors("web-session-start", _renamed(start, "hand_count", "hands_per_session"))
    assert errors("web-session-start", _renamed(start, "player_count", "players"))


def test_the_schemas_refuse_a_natural_or_a_count_the_code_cannot_emit(client):
    """A natural is one of the kinds the rules know (or null); a hand has at most
    C(13,3)*C(10,5) = 72072 splits; a session's scores and totals are one a seat (2 to 4) and
    the hands scored are distinct hand numbers 0 to 7."""
    from solver.rules import NATURALS

    solved = _solve_document()
    for kind in (*NATURALS, None):
        assert errors("solve", solved | {"natural": kind}) == [], kind
    assert errors("solve", solved | {"natural": "bogus"})
    assert errors("solve", solved | {"legal_split_count": 72072}) == []
    assert errors("solve", solved | {"legal_split_count": 99999999})
    line = json.loads(_printed(bench_main, ["arrange", SIX_PAIRS, "--bot", "greedy", "--rules", "naturals", "--json"]))
    assert errors("arrange", line) == []
    assert errors("arrange", line | {"natural": "bogus"})
    started = _answer(client, "/api/session/start", {"seed": 9, "bots": ["greedy"]})
    cards = _answer(client, "/api/session/deal", {"session": started["session"], "hand_number": 3})["hand"].split()
    played = _answer(client, "/api/session/play", {"session": started["session"], "hand_number": 3, "samples": 30,
                                                   "arrangement": f"{' '.join(cards[10:])} / {' '.join(cards[5:10])} / "
                                                                  f"{' '.join(cards[:5])}"})
    assert errors("web-session-play", played) == [] and played["hands_scored"] == [3]
    for field in ("scores", "totals"):
        assert errors("web-session-play", played | {field: [0] * 7}), field
        assert errors("web-session-play", played | {field: [0]}), field
    for scored in ([9], [3, 3], [-1], list(range(9))):
        assert errors("web-session-play", played | {"hands_scored": scored}), scored


def test_bench_bots_json_is_the_bots_document():
    doc = json.loads(_printed(bench_main, ["bots", "--json"]))
    valid("bots", doc)
    assert {b["name"] for b in doc["bots"]} >= {"exhaustive", "greedy", "heuristic", "random", "table"}
    assert errors("bots", doc["bots"])  # a bare list
    assert errors("bots", _without(doc, "schema_version"))
    assert errors("bots", doc | {"bots": [b | {"parameters": []} for b in doc["bots"]]})


def test_a_sessions_grade_is_described_as_the_hand_grade_document_is():
    """web-session-play holds a copy of hand-grade (its grade): every field the same, but the
    opponent's identity, which the page's grades do not carry; so a new field cannot be
    emitted by one and refused by the other."""
    copy, original = schema("web-session-play")["$defs"]["hand_grade"], schema("hand-grade")
    assert copy["properties"] == {k: v for k, v in original["properties"].items() if k != "opponent_identity"}
    assert copy["required"] == original["required"]

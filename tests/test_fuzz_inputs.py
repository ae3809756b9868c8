"""Every text a person or a file hands d100, fuzzed: the quick form, TOML sheets and JSON Lines
lines. Only a D100Error may come out of the library, and a bad line never ends the stream."""

from __future__ import annotations

import contextlib
import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from d100 import quick
from d100.cli.jsonl import answer_lines
from d100.engine import odds
from d100.errors import D100Error
from d100.sheets import loads
from d100.systems import REGISTRY
from tests.conftest import depth

BOUNDED = settings(max_examples=depth(100, 1000), deadline=None)

# words the quick form knows, so the fuzz reaches past the first word
WORDS = sorted({w for s in REGISTRY.names() for w in (s, *quick.words_of(s))})
WORD = st.one_of(
    st.sampled_from(WORDS),
    st.integers(-200, 10**6).map(str),
    st.sampled_from(["@", "@00", "@42,7", "+", "-", "b1", "p9", "=", "x=", "/", "<=", "CC<="]),
    st.text(max_size=8),
)
QUICK = st.one_of(st.text(max_size=60), st.lists(WORD, max_size=8).map(" ".join))


@BOUNDED
@given(text=QUICK, system=st.none() | st.sampled_from(REGISTRY.names()))
def test_fuzz_quick_parse_raises_only_d100_error(text: str, system: str | None) -> None:
    with contextlib.suppress(D100Error):
        quick.parse(text, system)


SCALAR = st.one_of(
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(['"brp"', '"openquest"', '"chances"', "true", "[]", "{}", '"x"', "1.5"]),
    st.text(alphabet="abc\"'[]{}=.,\n 1", max_size=10),
)
KEY = st.sampled_from(["system", "skills", "luck", "abilities", "uses", "synergy", "name", "x"])
TABLE = st.lists(st.tuples(KEY, SCALAR), max_size=5).map(
    lambda pairs: "\n".join(f"{k} = {v}" for k, v in pairs)
)
SHEET = st.one_of(
    st.text(max_size=200),
    st.lists(st.tuples(st.sampled_from(["alice", "Alice", "bob", "a b"]), TABLE), max_size=3).map(
        lambda tables: "\n".join(f'["{n}"]\n{t}' for n, t in tables)
    ),
    st.integers(1, 3000).map(lambda n: "x = " + "[" * n + "]" * n),
)


@BOUNDED
@given(text=SHEET)
def test_fuzz_sheets_raise_only_d100_error(text: str) -> None:
    with contextlib.suppress(D100Error):
        loads(text)


def _json_like(depth: int) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=40),
        st.just("[" * depth + "]" * depth),
        st.integers(4000, 6000).map(lambda n: '{"system":"brp","skill":' + "7" * n + "}"),
        st.dictionaries(
            st.sampled_from(["system", "skill", "dice", "quick", "difficulty", "actor"]),
            st.one_of(
                st.integers(-(10**30), 10**30),
                st.sampled_from(REGISTRY.names()),
                st.text(max_size=12),
                st.lists(st.integers(-5, 105), max_size=4),
                st.none(),
            ),
            max_size=4,
        ).map(json.dumps),
    )


@BOUNDED
@given(lines=st.lists(_json_like(100_000), min_size=1, max_size=4))
def test_fuzz_json_lines_answer_every_line(lines: list[str]) -> None:
    lines = [text.replace("\n", " ").replace("\r", " ") for text in lines]
    good = '{"system":"brp","skill":65}'
    body = "\n".join([*lines, good]) + "\n"
    out = io.StringIO()

    def answer(data: Any) -> dict[str, Any]:
        return odds(data).to_dict()

    answer_lines(io.StringIO(body), out, answer)
    replies = [json.loads(text) for text in out.getvalue().splitlines()]
    asked = [text for text in [*lines, good] if text.strip()]
    assert len(replies) == len(asked)
    assert "error" not in replies[-1]

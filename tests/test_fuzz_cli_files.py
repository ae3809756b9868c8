"""The files the CLI reads, fuzzed (binary, huge, deeply nested, empty): verify, sheet validate
and roll --sheet answer each with exit status 2 and one line naming the file, never a
traceback. Run in-process through ``d100.cli.main``, so an uncaught exception fails the test."""

from __future__ import annotations

import contextlib
import io
import tempfile
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from d100.cli import main
from tests.conftest import depth

COMMANDS = [
    ("verify", "{file}"),
    ("sheet", "validate", "{file}"),
    ("roll", "--sheet", "{file}", "alice", "stealth"),
]
CONTENT = st.one_of(
    st.binary(max_size=300),
    st.just(b""),
    st.just(b"\xff" * 10 + b"[alice]\n"),
    st.integers(1, 200_000).map(lambda n: b"[" * n + b"]" * n),
    st.integers(1, 200_000).map(lambda n: b"x = " + b"[" * n + b"]" * n),
    st.just(b"# " + b"y" * (2 << 20)),
    st.just(b'{"seq": 1, "kind": "open", "n": ' + b"9" * 5000 + b"}\n"),
    st.text(max_size=200).map(lambda t: t.encode("utf-8", "surrogatepass")),
)
FOLDER = Path(tempfile.mkdtemp(prefix="d100-fuzz-files-"))


@settings(max_examples=depth(100, 1000), deadline=None)
@given(content=CONTENT, command=st.sampled_from(COMMANDS))
def test_fuzz_a_file_is_an_error_line_or_an_answer(
    content: bytes, command: tuple[str, ...]
) -> None:
    path = FOLDER / "input.dat"
    path.write_bytes(content)
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main([part.format(file=path) for part in command])
    if status == 2:
        lines = err.getvalue().splitlines()
        assert len(lines) == 1 and lines[0].startswith("d100: error: "), err.getvalue()
        assert "Traceback" not in err.getvalue()
    else:  # a file that happens to be a valid sheet or log
        assert status in (0, 1), (status, err.getvalue())

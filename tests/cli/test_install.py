"""Installing the library alone: ``pip install d100`` gives the library and the command line;
a command that needs an extra says which, with the line that installs it, and exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from d100.cli import extras

from .conftest import HOME

ROOT = Path(__file__).resolve().parents[2]
EVERY = sorted(extras.EXTRAS)
# d100 run as its entry point does, with argv after the code
MAIN = "from d100.cli import main\nsys.exit(main(sys.argv[1:]))\n"

# every command that needs an extra: (its words, the extra); {tmp} is the test's directory
NEEDS = [
    (["serve", "--port", "0"], "server"),
    (["discord", "register", "--print"], "server"),
    (["discord", "register", "--guild", "1"], "server"),
    (["discord", "--help"], "server"),
    (["chart", "-s", "brp", "-o", "{tmp}/brp.png"], "charts"),
    (["chart", "--compare", "brp,openquest", "-o", "{tmp}/systems.svg"], "charts"),
]


def of_extra(extra: str) -> list[str]:
    return sorted(p for p, e in extras.EXTRAS.items() if e == extra)


def environment() -> dict[str, str]:
    """The tests' environment, without the person's config, sheet or history."""
    ignored = ("D100_SHEET", "D100_SYSTEM", "NO_COLOR", "FORCE_COLOR")
    env = {k: v for k, v in os.environ.items() if k not in ignored}
    env["XDG_CONFIG_HOME"] = env["XDG_STATE_HOME"] = str(HOME / "xdg")
    return env


# d100.server.serving.run, should the packages not be hidden after all: exit 99 at once
GUARD = """\
import os
try:
    import d100.server.serving as serving
except ImportError:
    pass
else:
    def served(*args, **kwargs):
        print("served")
        os._exit(99)
    serving.run = served
"""


def without(
    packages: list[str], code: str, *argv: str, cwd: Path, guard: bool = True
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter where importing any of ``packages`` fails as it does
    when they are not installed (``None`` in ``sys.modules``); with ``guard``, a ``d100 serve``
    that got past them exits 99 instead of serving."""
    hide = "import sys\n" + "".join(f"sys.modules[{p!r}] = None\n" for p in packages)
    return subprocess.run(
        [sys.executable, "-c", hide + (GUARD if guard else "") + code, *argv],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=cwd,
        timeout=60,
    )


# Cases run one after the other by one interpreter that has imported the command line (none
# of the extras' packages, as test_the_library_and_the_other_commands_need_no_extra proves):
# each in a child forked from it, where the case's packages are hidden, its code run with its
# arguments, its output and exit status its own.
EACH = """\
import json, os, sys, tempfile, traceback
import d100.cli
done = []
for packages, code, argv in json.loads(sys.argv[1]):
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        pid = os.fork()
        if pid == 0:
            os.dup2(out.fileno(), 1)
            os.dup2(err.fileno(), 2)
            for p in packages:
                sys.modules[p] = None
            sys.argv = ["-c", *argv]
            status = 0
            try:
                exec(compile(code, "<case>", "exec"), {"__name__": "__main__", "sys": sys})
            except SystemExit as end:
                if isinstance(end.code, int) or end.code is None:
                    status = end.code or 0
                else:
                    print(end.code, file=sys.stderr)
                    status = 1
            except BaseException:
                traceback.print_exc()
                status = 1
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(status)
        _, waited = os.waitpid(pid, 0)
        out.seek(0)
        err.seek(0)
        status = os.waitstatus_to_exitcode(waited)
        done.append((status, out.read().decode(), err.read().decode()))
print(json.dumps(done))
"""


def each_without(
    cases: list[tuple[list[str], str, list[str]]], cwd: Path, guard: bool = True
) -> list[subprocess.CompletedProcess[str]]:
    """``without`` for each of ``cases`` (packages, code, argv), in one interpreter."""
    asked = [(packages, (GUARD if guard else "") + code, argv) for packages, code, argv in cases]
    done = subprocess.run(
        [sys.executable, "-c", EACH, json.dumps(asked)],
        capture_output=True,
        text=True,
        env=environment(),
        cwd=cwd,
        timeout=60 + 10 * len(cases),
    )
    assert done.returncode == 0, done.stderr
    answers = json.loads(done.stdout)
    assert len(answers) == len(cases)
    return [
        subprocess.CompletedProcess(argv, status, out, err)
        for (_, _, argv), (status, out, err) in zip(cases, answers, strict=True)
    ]


def assert_names_extra(done: subprocess.CompletedProcess[str], command: str, extra: str) -> None:
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr
    assert done.stdout == ""
    line = done.stderr.strip()
    assert "\n" not in line, line
    assert line.startswith(f"d100: error: d100 {command} needs the {extra} extra ("), line
    assert line.endswith(f"install it with: pip install 'd100[{extra}]'"), line


def test_every_package_of_an_extra_names_it() -> None:
    """The map follows pyproject.toml: each of an extra's requirements is mapped to it."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    declared = meta["optional-dependencies"]
    for extra in set(extras.EXTRAS.values()):
        assert extra in declared, extra
        for requirement in declared[extra]:
            name = requirement.split("[")[0].split(">")[0].split("=")[0].split("<")[0].strip()
            assert extras.EXTRAS.get(name.lower()) == extra, requirement
    core = {r.split(">")[0].split("=")[0].strip().lower() for r in meta["dependencies"]}
    assert not core & set(extras.EXTRAS)


def test_a_missing_package_becomes_its_extra(tmp_path: Path) -> None:
    """Each package of every extra, the only one missing in its turn."""
    code = (
        "from d100.cli import extras\n"
        "try:\n"
        "    with extras.needed('serve'):\n"
        "        __import__(sys.argv[1])\n"
        "except extras.MissingExtra as err:\n"
        "    print(err.extra, err.module, err.field, err.value, err.allowed, sep='|')\n"
    )
    answers = each_without([([p], code, [p]) for p in EVERY], cwd=tmp_path, guard=False)
    for package, done in zip(EVERY, answers, strict=True):
        extra = extras.EXTRAS[package]
        want = f"{extra}|{package}|command|serve|pip install 'd100[{extra}]'"
        assert done.stdout.strip() == want, (package, done)


def test_other_import_errors_pass_through() -> None:
    with pytest.raises(ModuleNotFoundError), extras.needed("roll"):
        import d100.no_such_module  # type: ignore[import-not-found]  # noqa: F401
    err = ModuleNotFoundError("No module named 'numpyish'", name="numpyish")
    assert extras.extra_of(err) is None
    assert extras.extra_of(ModuleNotFoundError("no name")) is None
    sub = ModuleNotFoundError("No module named 'numpy.typing'", name="numpy.typing")
    assert extras.extra_of(sub) == ("charts", "numpy")


def test_a_command_without_its_extra_says_which(tmp_path: Path) -> None:
    """Each command that needs an extra, with every package of that extra missing."""
    cases = [(of_extra(e), MAIN, [w.format(tmp=tmp_path) for w in a]) for a, e in NEEDS]
    for (argv, extra), done in zip(NEEDS, each_without(cases, cwd=tmp_path), strict=True):
        assert_names_extra(done, argv[0], extra)


@pytest.mark.slow  # the server's stack loaded ten times over: started first, not left for last
def test_serve_names_the_server_extra_whichever_package_is_missing(tmp_path: Path) -> None:
    """One package of the server extra missing in its turn, the rest there: serve fails
    cleanly, before it says it serves (psycopg is loaded only for PostgreSQL, cryptography and
    httpx for the Discord endpoint)."""
    env = {"D100_DATABASE_URL": "postgresql+psycopg://nobody@127.0.0.1:1/none"}
    cases = []
    for package in of_extra("server"):
        code = "import os\nos.environ.update(" + repr(env) + ")\n"
        if package in ("cryptography", "httpx"):  # Discord's: loaded with its endpoint
            code += "os.environ['D100_DISCORD_PUBLIC_KEY'] = '00' * 32\n"
        cases.append(([package], code + MAIN, ["serve", "--port", "0"]))
    for package, done in zip(of_extra("server"), each_without(cases, cwd=tmp_path), strict=True):
        assert_names_extra(done, "serve", "server")
        assert f"({package} is not installed)" in done.stderr, (package, done)


def test_json_errors_carry_the_extra(tmp_path: Path) -> None:
    argv = ["discord", "register", "--print", "--json"]
    done = without(of_extra("server"), MAIN, *argv, cwd=tmp_path)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    error = json.loads(done.stdout)["error"]
    assert error["kind"] == "missing_extra"
    assert error["field"] == "command" and error["value"] == "discord"
    assert error["extra"] == "server" and error["module"] in extras.EXTRAS
    assert error["allowed"] == "pip install 'd100[server]'"
    assert error["message"] == done.stderr.strip().removeprefix("d100: error: ")


def test_the_library_and_the_other_commands_need_no_extra(tmp_path: Path) -> None:
    code = (
        "import d100\n"
        "loaded = {m.split('.')[0] for m, v in sys.modules.items() if v}\n"
        f"loaded = sorted(loaded & set({EVERY!r}))\n"
        "assert not loaded, loaded\n"
        "from d100.cli import main\n"
        "assert main(['roll', 'brp', '65', '@42']) == 0\n"
        "assert main(['odds', '-s', 'brp', '--skill', '50']) == 0\n"
        "assert main(['simulate', '-s', 'brp', '--skill', '50', '-n', '200', '--seed', '1']) == 0\n"
    )
    done = without(EVERY, code, cwd=tmp_path, guard=False)
    assert done.returncode == 0, done.stderr
    assert "SUCCESS" in done.stdout


def test_completion_without_the_server_extra_lists_discord(tmp_path: Path) -> None:
    done = without(of_extra("server"), MAIN, "completion", "bash", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "discord" in done.stdout and "serve" in done.stdout


@pytest.mark.slow  # builds the wheel and installs it and its dependencies in a new venv
def test_the_wheel_alone(tmp_path: Path) -> None:
    dist, env_dir, work = tmp_path / "dist", tmp_path / "venv", tmp_path / "work"
    work.mkdir()
    clean = {
        k: v
        for k, v in environment().items()
        if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "PYTHONSTARTUP")
    }
    pip = ["-m", "pip", "--disable-pip-version-check", "-q"]

    def run(*cmd: str | Path) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(c) for c in cmd],
            capture_output=True,
            text=True,
            env=clean,
            cwd=work,
            timeout=300,
        )

    built = run(sys.executable, *pip, "wheel", ROOT, "--no-deps", "-w", dist)
    assert built.returncode == 0, built.stderr
    (wheel,) = dist.glob("d100-*.whl")
    # a venv of its own, without a pip of its own (installing one is most of a venv's making):
    # this pip installs into it (--python), the wheel and its dependencies from the index as a
    # user's would, left to be compiled by the runs below as they import
    venv.create(env_dir, with_pip=False)
    python, d100 = env_dir / "bin" / "python", env_dir / "bin" / "d100"
    installed = run(sys.executable, *pip, "--python", python, "install", "--no-compile", wheel)
    assert installed.returncode == 0, installed.stderr

    probe = (
        "import importlib.util, d100, sys\n"
        "print(d100.__file__)\n"
        f"print(sorted(p for p in {EVERY!r} if importlib.util.find_spec(p)))\n"
    )
    imported = run(python, "-c", probe)
    assert imported.returncode == 0, imported.stderr
    where, present = imported.stdout.splitlines()
    assert where.startswith(str(env_dir)), where  # the wheel's d100, not the checkout's
    assert present == "[]", present  # no extra came with it

    rolled = run(d100, "roll", "brp", "65", "@42")  # the entry point the wheel installs
    assert rolled.returncode == 0, rolled.stderr
    assert "level" in rolled.stdout and "SUCCESS" in rolled.stdout
    # each command that needs an extra, where the extra's packages are truly absent: run by
    # the entry point's main, one after the other in one interpreter, each with its own output
    commands = [[w.format(tmp=work) for w in argv] for argv, _ in NEEDS]
    each = (
        "import contextlib, io, json, sys\n"
        "from d100.cli import main\n"
        "done = []\n"
        f"for argv in {commands!r}:\n"
        "    out, err = io.StringIO(), io.StringIO()\n"
        "    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):\n"
        "        status = main(argv)\n"
        "    done.append((argv, status, out.getvalue(), err.getvalue()))\n"
        "print(json.dumps(done))\n"
    )
    ran = run(python, "-c", each)
    assert ran.returncode == 0, ran.stderr
    answers = json.loads(ran.stdout)
    assert len(answers) == len(NEEDS)
    for (argv, extra), answer in zip(NEEDS, answers, strict=True):
        assert_names_extra(subprocess.CompletedProcess(*answer), argv[0], extra)


def test_the_discord_parser_looks_for_what_sending_loads(tmp_path: Path) -> None:
    """``d100 discord``'s parser is built without the server's stack: the packages it looks
    for are the server extra's that the module that sends loads, and the names of the
    application's id and bot token are the endpoint's."""
    from d100.cli import discord
    from d100.discord import router

    code = (
        "import d100.discord.register\n"
        f"print(sorted({{m.split('.')[0] for m in sys.modules}} & set({EVERY!r})))\n"
    )
    done = without([], code, cwd=tmp_path, guard=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(sorted(discord.LOADS))
    assert set(discord.LOADS) <= set(of_extra("server"))
    assert discord.APPLICATION_ID_ENV == router.APPLICATION_ID_ENV
    assert discord.BOT_TOKEN_ENV == router.BOT_TOKEN_ENV
    # any one of them missing, the command names the extra, its help too
    cases = [([p], MAIN, ["discord", "--help"]) for p in discord.LOADS]
    for package, done in zip(discord.LOADS, each_without(cases, cwd=tmp_path), strict=True):
        assert_names_extra(done, "discord", "server")
        assert f"({package} is not installed)" in done.stderr, (package, done)


def test_serve_tells_a_bad_discord_key_before_it_starts(tmp_path: Path) -> None:
    code = "import os\nos.environ['D100_DISCORD_PUBLIC_KEY'] = 'zz'\n" + MAIN
    done = without([], code, "serve", "--port", "0", "--database", "sqlite://", cwd=tmp_path)
    assert done.returncode == 2 and done.stdout == "" and "Traceback" not in done.stderr
    assert done.stderr.startswith("d100: error: D100_DISCORD_PUBLIC_KEY: not an Ed25519"), done

"""``d100 chart``: PNG or SVG charts of the exact odds against skill (matplotlib)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..declarations import LevelSpec
from ..engine import odds
from ..errors import D100Error
from ..render.checks import inputs_text
from ..results import CheckOdds
from ..systems import REGISTRY
from . import flags
from .odds import skill_range, table_requests

HELP = """\
Draw P(success) against skill for several difficulties, dice or systems on one chart, or the
bands of every level for one request (--bands). The file's suffix picks PNG or SVG.

examples:
  d100 chart -s brp --difficulty standard,difficult,hard -o brp.png
  d100 chart -s brp --bonus 0,1,2 -o dice.svg
  d100 chart --compare brp,openquest,chances --risk average -o systems.png
  d100 chart -s openquest --bands -o oq-bands.svg
"""
FORMATS = (".png", ".svg")
# the terminal's level colours, as a diverging palette from best (green) to worst (red)
LEVEL_COLOURS = {
    "best": "#1a9850",
    "good": "#91cf60",
    "ok": "#d9ef8b",
    "bad": "#fc8d59",
    "worst": "#d73027",
}
SHADE = 0.22  # how much darker each better level sharing a style is drawn than the next


def band_colours(levels: tuple[LevelSpec, ...]) -> list[str]:
    """A colour a level, best to worst: its style's, darkened for each worse level of the same
    style after it, so levels sharing a style (CoC7's extreme and hard) are told apart."""
    out = []
    for i, level in enumerate(levels):
        worse = sum(1 for later in levels[i + 1 :] if later.style == level.style)
        base = LEVEL_COLOURS[level.style]
        rgb = [int(base[k : k + 2], 16) for k in (1, 3, 5)]
        out.append("#" + "".join(f"{round(c * (1 - SHADE) ** worse):02x}" for c in rgb))
    return out


def register(sub: Any) -> None:
    p = sub.add_parser(
        "chart",
        description=HELP,
    )
    flags.add_system(p)
    flags.add_side_flags(p, skill=False, dice=False)
    flags.add_check_flags(p)
    p.add_argument("--compare", metavar="SYSTEMS", help="systems on one chart, e.g. brp,openquest")
    p.add_argument("--bands", action="store_true", help="every level's band for one request")
    p.add_argument("--skills", default="0-100", metavar="LOW-HIGH", help="the x axis")
    p.add_argument("--step", type=int, default=1, help="skill step (default 1)")
    p.add_argument("--output", "-o", required=True, help="the file to write: .png or .svg")
    p.set_defaults(run=run, skill=None)


def series(ns: argparse.Namespace, system: str) -> list[tuple[str, str, dict[str, Any]]]:
    """(system, label, request without skill) for each line the flags describe."""
    ns.system = system
    out = []
    for request in table_requests(ns):
        label = inputs_text({k: v for k, v in request.items() if k != "system"}, system)
        out.append((system, label, request))
    return out


def run(ns: argparse.Namespace) -> int:
    path = Path(ns.output)
    if path.suffix.lower() not in FORMATS:
        raise D100Error("--output", ns.output, "a file name ending .png or .svg", "unknown format")
    flags.writable(path, "--output")
    skills = skill_range(ns.skills, ns.step)
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8, 5))
    if ns.bands:
        system = REGISTRY.get(flags.system_of(ns))
        variants = series(ns, system.name)
        if len(variants) != 1:
            raise D100Error(
                "--bands", len(variants), "one request (no comma lists)", "bands chart one request"
            )
        _, label, request = variants[0]
        curves = [_odds(request, s) for s in skills]
        levels = system.declares.levels
        stacks = [[float(c.levels[lv.name]) * 100 for c in curves] for lv in levels]
        colours = band_colours(levels)
        names = [lv.name for lv in levels]
        ax.stackplot(skills, stacks, labels=names, colors=colours, alpha=0.9)
        ax.set_title(f"{system.title}: level bands" + (f", {label}" if label else ""))
        ax.set_ylabel("P(level) %")
    else:
        systems = ns.compare.split(",") if ns.compare else [flags.system_of(ns)]
        lines = []
        for name in systems:
            system = REGISTRY.get(name.strip(), "--compare")
            target = system.declares.target
            required = any(f.required for f in system.check_fields if f.name == target.field)
            if required and getattr(ns, flags.dest_of(target.field), None) is None:
                setattr(ns, flags.dest_of(target.field), target.default)  # the usual target
            lines += series(_only_inputs_of(ns, system.name), system.name)
        for name, label, request in lines:
            ys = [float(_odds(request, s).success) * 100 for s in skills]
            tag = REGISTRY.get(name).title if ns.compare else ""
            ax.plot(skills, ys, label=", ".join(t for t in (tag, label) if t) or "as asked")
        ax.set_title("P(success) against skill")
        ax.set_ylabel("P(success) %")
    ax.set_xlabel("skill %")
    ax.set_ylim(0, 100)
    ax.set_xlim(skills[0], skills[-1])
    ax.grid(alpha=0.3)
    ax.legend(loc="best", fontsize="small")
    fig.tight_layout()
    try:
        fig.savefig(path, format=path.suffix[1:].lower())
    except OSError as err:
        raise D100Error("--output", str(path), "a file d100 may write", err.strerror) from None
    finally:
        plt.close(fig)
    print(f"wrote {path}")
    return 0


def _only_inputs_of(ns: argparse.Namespace, system: str) -> argparse.Namespace:
    """In a comparison each system takes the flags that are its inputs and ignores the rest."""
    allowed = flags.fields_of(system, contest=False)
    copy = argparse.Namespace(**vars(ns))
    for f in flags.flag_table():
        field = flags.field_of(f, system)
        if field is None or field not in allowed:
            setattr(copy, f.dest, None)
    return copy


def _odds(request: dict[str, Any], skill: int) -> CheckOdds:
    chance = odds({**request, "skill": skill})
    assert isinstance(chance, CheckOdds)
    return chance

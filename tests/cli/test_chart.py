"""``d100 chart``: the files are decoded and checked, not just found."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image

from d100.cli.chart import LEVEL_COLOURS, band_colours
from d100.systems import REGISTRY
from tests import new_names_system

from .conftest import clean_error, d100


def test_png_decodes_with_curves(tmp_path: Path) -> None:
    path = tmp_path / "brp.png"
    run = d100("chart", "-s", "brp", "--difficulty", "standard,hard", "-o", str(path))
    assert run.out == f"wrote {path}\n"
    pixels = matplotlib.image.imread(path)
    assert pixels.shape[0] > 300 and pixels.shape[1] > 500
    # drawn, not blank: many distinct colours (the two curves, the legend, the text)
    colours = {tuple(p) for p in pixels.reshape(-1, pixels.shape[2])[::7].tolist()}
    assert len(colours) > 20


def test_svg_compare_systems_names_every_line(tmp_path: Path) -> None:
    path = tmp_path / "systems.svg"
    d100("chart", "--compare", "brp,openquest,chances", "--step", "5", "-o", str(path))
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    text = path.read_text()
    for label in ("Basic Roleplaying", "OpenQuest", "Taking Chances, risk average"):
        assert label in text  # the legend (matplotlib keeps text as comments and ids)


def test_bands_chart_and_errors(tmp_path: Path) -> None:
    path = tmp_path / "bands.svg"
    d100("chart", "-s", "openquest", "--bands", "-o", str(path), "--step", "10")
    assert "fumble" in path.read_text()
    assert "unknown format" in clean_error(d100("chart", "-s", "brp", "-o", "x.gif"))
    assert "one request" in clean_error(
        d100("chart", "-s", "brp", "--bands", "--bonus", "0,1", "-o", str(path))
    )


def test_a_bands_chart_draws_each_level_in_its_own_colour(tmp_path: Path) -> None:
    # CoC7's extreme and hard share a style: they were drawn in one colour, 5 for 6 levels
    path = tmp_path / "coc7.svg"
    d100("chart", "-s", "coc7", "--bands", "-o", str(path), "--step", "10")
    fills = set(re.findall(r"fill: (#[0-9a-f]{6})", path.read_text())) - {"#ffffff"}
    assert len(fills) == len(REGISTRY.get("coc7").declares.levels) == 6, fills


def test_band_colours_tell_every_system_s_levels_apart() -> None:
    for system in [*REGISTRY, new_names_system.SYSTEM]:
        levels = system.declares.levels
        colours = band_colours(levels)
        assert len(set(colours)) == len(levels), (system.name, colours)
        # the worst level of a style keeps the style's own colour
        for level, colour in zip(levels, colours, strict=True):
            if not any(later.style == level.style for later in levels[levels.index(level) + 1 :]):
                assert colour == LEVEL_COLOURS[level.style], (system.name, level.name)

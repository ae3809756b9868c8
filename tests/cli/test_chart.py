"""``d100 chart``: the files are decoded and checked, not just found."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import matplotlib.image

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

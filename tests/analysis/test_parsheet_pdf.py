"""The par sheet's PDF, the document a regulator files, read back the way a person would see it:
Poppler's ``pdftotext`` for its words page by page, ``pdfimages`` for its plots and ``pdftoppm``
for each page as a picture (how much of it is blank). Also ``croupier analyze --out DIR`` as a
user runs it: the files it writes there and nothing else.

A quick sheet (``--quick``) is computed for real (uk-pontoon, a few CPU seconds); the full
sheet, with the table of each rule changed alone, the decks curve and three plots, is
``fixtures/uk-pontoon-full.json`` (its computation takes too long here).
"""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from PIL import Image

from controller import __version__
from controller.analysis.parsheet import ENGINE_VERSION
from controller.analysis.pdf import render_pdf
from controller.analysis.report import document
from controller.cli.main import main
from controller.game.rules import load_variant

FULL = Path(__file__).parent / "fixtures" / "uk-pontoon-full.json"
CROUPIER = [sys.executable, "-m", "controller.cli"]


def run(*args: str | Path) -> str:
    done = subprocess.run([str(a) for a in args], capture_output=True, text=True, check=True)
    return done.stdout


class Pdf:
    """A PDF as Poppler reads it: each page's text and picture, and its images."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.pages = run("pdftotext", "-layout", path, "-").split("\f")[:-1]
        folder = path.parent / f"{path.stem}-pages"
        folder.mkdir()
        run("pdftoppm", "-r", "30", "-gray", "-png", path, folder / "page")
        self.pictures = sorted(folder.glob("page-*.png"))
        listing = run("pdfimages", "-list", path).splitlines()[2:]  # after its two header lines
        self.images = [row for row in map(str.split, listing) if row[2] == "image"]  # no masks

    def inked(self, page: int) -> float:
        """The share of the page's body (inside the margins, above the footer), cut in 12 x 12
        blocks, that has any ink: a page of text or tables is 0.5 or more, a page two thirds
        blank about 0.3."""
        with Image.open(self.pictures[page]) as picture:
            im = picture.convert("L")
        w, h = im.size
        top, bottom, left, right = int(h * 0.06), int(h * 0.90), int(w * 0.08), int(w * 0.92)
        blocks = 0
        for r in range(12):
            for c in range(12):
                box = (
                    left + (right - left) * c // 12,
                    top + (bottom - top) * r // 12,
                    left + (right - left) * (c + 1) // 12,
                    top + (bottom - top) * (r + 1) // 12,
                )
                blocks += int(sum(im.crop(box).histogram()[:200]) > 0)  # a pixel below 200
        return blocks / 144


@pytest.fixture(scope="module")
def quick(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """``croupier analyze uk-pontoon --quick --out OUT``, run as a user runs it."""
    base = tmp_path_factory.mktemp("quick")
    out, cache = base / "par", base / "cache"
    env = {**os.environ, "XDG_CACHE_HOME": str(cache)}
    before = datetime.now(UTC)
    done = subprocess.run(
        [*CROUPIER, "analyze", "uk-pontoon", "--quick", "--out", str(out)],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return {"out": out, "cache": cache, "env": env, "when": (before, datetime.now(UTC))}


@pytest.fixture(scope="module")
def quick_pdf(quick: dict[str, Any]) -> Pdf:
    return Pdf(quick["out"] / "uk-pontoon.pdf")


@pytest.fixture(scope="module")
def full_pdf(tmp_path_factory: pytest.TempPathFactory) -> Pdf:
    sheet = json.loads(FULL.read_text(encoding="utf-8"))
    path = tmp_path_factory.mktemp("full") / "uk-pontoon.pdf"
    path.write_bytes(render_pdf(document(sheet, load_variant("uk-pontoon"))))
    return Pdf(path)


def test_out_writes_the_json_the_page_and_the_pdf_and_nothing_else(quick: dict[str, Any]) -> None:
    out: Path = quick["out"]
    assert sorted(p.name for p in out.iterdir()) == [
        "uk-pontoon.html",
        "uk-pontoon.json",
        "uk-pontoon.pdf",
    ]
    assert stat.S_IMODE(out.stat().st_mode) == 0o700
    for each in out.iterdir():
        assert stat.S_IMODE(each.stat().st_mode) == 0o600, each
    cached = list((quick["cache"] / "croupier" / "analysis").glob("uk-pontoon-*.json"))
    assert len(cached) == 1  # the cache is in the cache folder, not beside the documents
    assert cached[0].read_bytes() == (out / "uk-pontoon.json").read_bytes()
    assert stat.S_IMODE(cached[0].stat().st_mode) == 0o600


def test_a_link_in_place_of_a_file_is_refused_before_anything_is_written(
    quick: dict[str, Any],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out, elsewhere = tmp_path / "par", tmp_path / "elsewhere.html"
    out.mkdir()
    elsewhere.write_text("not the par sheet's", encoding="utf-8")
    (out / "uk-pontoon.html").symlink_to(elsewhere)
    monkeypatch.setenv("XDG_CACHE_HOME", str(quick["cache"]))  # the sheet from the quick run
    assert main(["analyze", "uk-pontoon", "--quick", "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert f"croupier analyze: the par sheet's file {out / 'uk-pontoon.html'} is a symbolic " in err
    assert "Traceback" not in err
    assert elsewhere.read_text(encoding="utf-8") == "not the par sheet's"
    assert sorted(p.name for p in out.iterdir()) == ["uk-pontoon.html"]


def test_every_page_is_numbered_page_n_of_m(quick_pdf: Pdf, full_pdf: Pdf) -> None:
    for pdf in (quick_pdf, full_pdf):
        count = len(pdf.pages)
        assert count == len(pdf.pictures)
        assert count >= 4
        for n, text in enumerate(pdf.pages, start=1):
            assert f"page {n} of {count}" in text, (pdf.path.name, n)


def test_the_title_page_names_the_game_its_rules_hash_the_software_and_the_date(
    quick: dict[str, Any], quick_pdf: Pdf
) -> None:
    sheet = json.loads((quick["out"] / "uk-pontoon.json").read_text(encoding="utf-8"))
    title = quick_pdf.pages[0]
    assert "Par sheet" in title
    assert re.search(r"Game\s+British Pontoon \(five-card trick\) \(uk-pontoon\)", title)
    assert re.search(r"Rules hash \(SHA-256\)\s+" + sheet["rules_hash"], title)
    software = rf"Software\s+croupier {re.escape(__version__)}, analysis engine {ENGINE_VERSION}"
    assert re.search(software, title)
    before, after = quick["when"]
    days = {before.strftime("%Y-%m-%d"), after.strftime("%Y-%m-%d")}  # a run over midnight
    assert any(re.search(rf"Produced\s+{day} \d\d:\d\d UTC", title) for day in days)
    assert re.search(r"Left out\s+each rule changed alone and the decks curve", title)
    assert re.search(r"House edge\s+\+1\.2862 %", title)  # the key figures, as the JSON says


def test_its_tables_have_headers(quick_pdf: Pdf, full_pdf: Pdf) -> None:
    quick_text, full_text = "\n".join(quick_pdf.pages), "\n".join(full_pdf.pages)
    for text in (quick_text, full_text):
        assert re.search(r"figure\s+value", text)
        assert re.search(r"event\s+probability\s+about one in", text)
        assert re.search(r"paid as\s+probability\s+about one in", text)
        assert re.search(r"the dealer's final hand\n\s*first card\s+17\s+18\s+19\s+20\s+21", text)
        assert re.search(r"code\s+the player's play", text)
        assert re.search(r"cards in the player's hand\n\s*total\s+2\s+3\s+4\s+5\+", text)
        assert re.search(r"pair\s+two cards", text)
    assert re.search(r"rule changed alone\s+house edge\s+change", full_text)
    assert re.search(r"decks\s+house edge\n\s*1\s+\+2\.2208 %", full_text)
    assert "Left out of this quick sheet" in quick_text
    assert "Left out of this quick sheet" not in full_text


def test_it_holds_the_plots_and_the_method_with_its_approximations(
    quick_pdf: Pdf, full_pdf: Pdf
) -> None:
    assert len(quick_pdf.images) == 1  # the outcome distribution
    assert len(full_pdf.images) == 3  # and each rule changed alone, the decks curve
    for pdf in (quick_pdf, full_pdf):
        text = re.sub(r"\s+", " ", "\n".join(pdf.pages))
        assert "Method and approximations" in text
        assert "Splits, an approximation: Wizard of Odds appendix 9 method" in text
        assert "independent given the dealer's final hand" in text
        assert re.search(r"analysis engine \d+", text)  # (the fixture's sheet: engine 1)


def test_no_page_is_mostly_blank(quick_pdf: Pdf, full_pdf: Pdf) -> None:
    for pdf in (quick_pdf, full_pdf):
        inked = [pdf.inked(n) for n in range(len(pdf.pictures))]
        assert all(share >= 0.45 for share in inked[:-1]), (pdf.path.name, inked)
        assert inked[-1] >= 0.15, (pdf.path.name, inked)

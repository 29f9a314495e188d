"""``croupier simulate``: reproducible reports, replayed shoes, workers, overrides, the JSON."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

from controller.cli.main import main
from controller.cli.simulate import ProgressBar
from controller.play import simulate as sim
from controller.play.errors import SimulationError
from controller.play.simulate import ENGINES, ShoeStream, SimConfig, chunk_seed, report, simulate
from drivers.tbl21.cards import Card, DeckType
from sim_hardware import EmulatedShoe
from sim_hardware.testing import FakeHost


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["simulate", *args, "--json"]) == 0
    data: dict[str, Any] = json.loads(capsys.readouterr().out)
    return data


def results(data: dict[str, Any]) -> dict[str, Any]:
    """Everything but the timing, which is the only part a machine may change."""
    return {k: v for k, v in data.items() if k != "performance"}


def test_a_fixed_seed_gives_identical_json_twice(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("nz-pontoon", "--rounds", "600", "--boxes", "2", "--seed", "42")
    first = run_json(capsys, *args)
    second = run_json(capsys, *args)
    assert json.dumps(results(first)) == json.dumps(results(second))
    assert first["rounds"] == 600
    other_seed = run_json(capsys, "nz-pontoon", "--rounds", "600", "--boxes", "2", "--seed", "43")
    assert results(other_seed)["net_cents"] != results(first)["net_cents"]


def test_a_shoe_file_replays_identically(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    stream = ShoeStream(DeckType.STANDARD_52, 8, seed=3)
    cards = stream.shuffled_shoe() + stream.shuffled_shoe()
    shoe = tmp_path / "recorded.txt"
    shoe.write_text("# a recorded order\n" + " ".join(str(c) for c in cards) + "\n")
    args = ("uk-pontoon", "--rounds", "200", "--shoe-file", str(shoe), "--boxes", "3")
    first = run_json(capsys, *args)
    second = run_json(capsys, *args)
    assert json.dumps(results(first)) == json.dumps(results(second))
    assert first["shoe_file"] == str(shoe)
    assert first["counts"]["cards_drawn"] <= len(cards)


def test_a_replayed_recording_of_a_seeded_run_settles_every_round_the_same(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    drawn: list[Card] = []
    real_draw = ShoeStream.draw

    def recording_draw(self: ShoeStream) -> Card:
        card = real_draw(self)
        drawn.append(card)
        return card

    monkeypatch.setattr(ShoeStream, "draw", recording_draw)  # the controller's stream
    seeded = report(
        simulate(SimConfig("pa-blackjack", rounds=400, boxes=2, seed=8, engine="controller"))
    )
    monkeypatch.setattr(ShoeStream, "draw", real_draw)
    shoe = tmp_path / "drawn.txt"
    shoe.write_text(" ".join(str(c) for c in drawn))
    for engine in ENGINES:
        config = SimConfig("pa-blackjack", rounds=400, boxes=2, shoe_file=str(shoe), engine=engine)
        replayed = report(simulate(config))
        assert replayed["net_cents"] == seeded["net_cents"]
        assert replayed["counts"] == seeded["counts"]
        assert replayed["house_edge"] == seeded["house_edge"]


def test_a_recording_that_ends_mid_round_keeps_the_finished_rounds(tmp_path: Path) -> None:
    stream = ShoeStream(DeckType.SPANISH_48, 6, seed=4)
    shoe = tmp_path / "short.txt"
    shoe.write_text(" ".join(str(c) for c in stream.shuffled_shoe()[:40]))
    data = report(simulate(SimConfig("nz-pontoon", rounds=1000, shoe_file=str(shoe))))
    assert data["shoe_exhausted"] is True
    assert 0 < data["rounds"] < 20


def test_one_and_two_workers_with_the_same_seed_give_the_same_totals(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim, "CHUNK_ROUNDS", 150)  # four chunks, so two workers share them
    args = ("pontoon-blackjack", "--rounds", "560", "--seed", "9")
    one = run_json(capsys, *args, "--workers", "1")
    two = run_json(capsys, *args, "--workers", "2")
    assert one["chunks"] == two["chunks"] == 4
    assert two["performance"]["workers"] == 2
    assert results(one) == results(two)


def test_chunk_streams_are_independent_of_each_other() -> None:
    seeds = {chunk_seed(7, chunk) for chunk in range(100)}
    assert len(seeds) == 100
    assert chunk_seed(7, 0) != chunk_seed(8, 0)


def test_the_stream_is_the_emulated_shoes_order_shoe_after_shoe() -> None:
    stream = ShoeStream(DeckType.SPANISH_48, 6, seed=77)
    emulated = EmulatedShoe(decks=6, deck_type="48", seed=77)
    assert [stream.draw() for _ in range(288)] == emulated.cards_left
    host = FakeHost(emulated)
    host.boot()
    host.command("L", "6;48;0")  # the host loads a new shoe
    stream.new_shoe()
    assert [stream.draw() for _ in range(288)] == emulated.cards_left


@pytest.mark.parametrize(
    ("setting", "named"),
    [
        ("dealer.hits_soft_18=true", "dealer.hits_soft_18 = true (an override): unknown key"),
        ("dealer.hits_soft_17=maybe", 'dealer.hits_soft_17 = "maybe" (an override): must be'),
        ("shoe.decks=12", "shoe.decks = 12"),
        ("payouts.natural=3", "payouts.natural = 3"),
        ("hits_soft_17", "--set needs KEY=VALUE"),
        ("dealer..hits_soft_17=true", "write the key as section.key"),
    ],
)
def test_a_bad_set_is_refused_naming_the_key(
    setting: str, named: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "nz-pontoon", "--rounds", "10", "--set", setting]) == 2
    assert named in capsys.readouterr().err


def test_set_changes_the_rules_played(capsys: pytest.CaptureFixture[str]) -> None:
    args = ("pa-blackjack", "--rounds", "300", "--seed", "2")
    stands = run_json(capsys, *args)
    hits = run_json(capsys, *args, "--set", "dealer.hits_soft_17=true")
    assert hits["overrides"] == {"dealer.hits_soft_17": True}
    assert stands["dealer_final"] != hits["dealer_final"]


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--boxes", "8"], "--boxes must be 1-7"),
        (["--wager", "0"], "--wager must be positive"),
        (["--wager", "2.50"], "multiple of the table increment"),
        (["--rounds", "0"], "--rounds must be"),
        (["--workers", "0"], "--workers must be at least 1"),
        (["--shoe-file", "/nonexistent/shoe.txt"], "cannot read the card list"),
    ],
)
def test_bad_options_are_refused_with_what_is_allowed(
    option: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", "nz-pontoon", "--rounds", "5", *option]) == 2
    assert message in capsys.readouterr().err


def test_a_shoe_file_with_a_ten_is_refused_for_a_spanish_shoe(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    shoe = tmp_path / "tens.txt"
    shoe.write_text("AS KH TD 7C")
    assert main(["simulate", "nz-pontoon", "--rounds", "5", "--shoe-file", str(shoe)]) == 2
    assert "card 3 is a ten" in capsys.readouterr().err


def test_the_json_has_the_documented_keys(capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, "nz-pontoon", "--rounds", "300")
    assert set(data) == {
        "variant", "overrides", "shuffle", "seed", "shoe_file", "rounds", "boxes",
        "wager_cents", "initial_hands", "chunks", "chunk_rounds", "shoe_exhausted",
        "house_edge", "variance_per_round", "net_cents", "frequency", "counts", "dealer_final",
        "performance",
    }  # fmt: skip
    for key in ("with_super_bonus", "without_super_bonus"):
        assert set(data["house_edge"][key]) == {"edge", "standard_error"}
        assert data["house_edge"][key]["standard_error"] > 0
        assert data["variance_per_round"][key] > 0
    assert set(data["frequency"]) == {
        "player_natural", "surrender", "insurance", "rescue", "super_bonus", "five_card_trick",
        "bonus_hands",
    }  # fmt: skip
    assert "777-suited" in data["frequency"]["bonus_hands"]
    dealer = data["dealer_final"]
    categories = {"hands", "bust", "17", "18", "19", "20", "21", "natural", "other"}
    assert set(dealer["overall"]) == categories
    assert set(dealer["by_up_card"]) == set("23456789TA")
    assert all(set(row) == categories for row in dealer["by_up_card"].values())
    assert dealer["overall"]["hands"] == 300
    assert sum(v for k, v in dealer["overall"].items() if k != "hands") == pytest.approx(1)
    assert set(data["performance"]) == {
        "engine", "kernel", "seconds", "cpu_seconds", "rounds_per_second",
        "rounds_per_cpu_second", "workers", "rounds_per_second_per_worker",
    }  # fmt: skip
    assert data["performance"]["engine"] == "kernel"
    # compiled (setup.py), or the source and why (controller/compiled.py)
    kernel = data["performance"]["kernel"]
    assert kernel == "compiled" or kernel.startswith("Python source: ")
    assert data["performance"]["rounds_per_cpu_second"] > 0


def test_the_text_report_names_the_figures(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "uk-pontoon", "--rounds", "200"]) == 0
    out = capsys.readouterr().out
    assert "house edge per initial unit" in out
    assert "five-card trick" in out
    assert "dealer's final hand" in out
    assert "rounds/s" in out


@pytest.mark.parametrize("variant", ["uk-pontoon", "pa-blackjack", "pontoon-blackjack"])
def test_the_text_report_has_no_super_bonus_lines_for_a_variant_without_one(
    variant: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["simulate", variant, "--rounds", "50"]) == 0
    out = capsys.readouterr().out
    assert "super bonus" not in out.lower()
    assert "rescue" not in out  # no variant but nz-pontoon has the double-down rescue
    assert ("surrender" in out) is (variant == "pa-blackjack")


def test_the_text_report_gives_nz_pontoon_with_and_without_the_super_bonus(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "nz-pontoon", "--rounds", "50"]) == 0
    out = capsys.readouterr().out
    assert "  with Super Bonus " in out
    assert "  without Super Bonus " in out
    assert "  super bonus " in out


def test_wager_and_boxes_scale_the_money_not_the_edge() -> None:
    small = report(simulate(SimConfig("nz-pontoon", rounds=200, seed=3, wager_cents=500)))
    large = report(simulate(SimConfig("nz-pontoon", rounds=200, seed=3, wager_cents=2000)))
    no_bonus = "without_super_bonus"
    assert large["net_cents"][no_bonus] == 4 * small["net_cents"][no_bonus]
    assert large["house_edge"][no_bonus] == small["house_edge"][no_bonus]


@pytest.mark.parametrize("workers", [1, 2])
def test_progress_is_reported_from_zero_to_every_round(
    workers: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sim, "CHUNK_ROUNDS", 300)
    seen: list[tuple[int, int]] = []
    simulate(
        SimConfig("uk-pontoon", rounds=700, workers=workers),
        progress=lambda done, total: seen.append((done, total)),
    )
    done = [d for d, _ in seen]
    assert done[0] == 0
    assert done[-1] == 700
    assert done == sorted(done)
    assert {t for _, t in seen} == {700}


def test_the_progress_bar_shows_the_share_the_rounds_and_the_time_left() -> None:
    out = io.StringIO()
    bar = ProgressBar(out)
    bar(500, 1000)
    bar.close()
    line = out.getvalue()
    assert line.startswith("\r[")
    assert " 50%" in line
    assert "500/1,000 rounds" in line
    assert "left" in line
    assert line.endswith("\n")


def test_the_controller_engine_reports_what_the_kernel_reports(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ("pontoon-blackjack", "--rounds", "400", "--boxes", "3", "--seed", "4")
    kernel = run_json(capsys, *args)
    controller = run_json(capsys, *args, "--engine", "controller")
    assert kernel["performance"]["engine"] == "kernel"
    assert controller["performance"]["engine"] == "controller"
    assert results(kernel) == results(controller)


def test_an_unknown_engine_is_refused_with_the_choices(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stopped:
        main(["simulate", "nz-pontoon", "--rounds", "5", "--engine", "turbo"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--engine" in err
    assert "kernel" in err
    assert "controller" in err


def test_a_config_with_an_unknown_engine_is_refused() -> None:
    config = SimConfig("nz-pontoon", rounds=5, engine="turbo")  # type: ignore[arg-type]
    with pytest.raises(SimulationError, match="--engine must be one of kernel, controller"):
        simulate(config)

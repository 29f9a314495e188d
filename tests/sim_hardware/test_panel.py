"""The emulated button panel: presses, holds, key switch, LEDs, text and buzzer."""

from __future__ import annotations

import pytest

from sim_hardware import EmulatedPanel, Led, SimActionError, SimConfigError
from sim_hardware.testing import FakeHost


def booted(panel: EmulatedPanel) -> FakeHost:
    host = FakeHost(panel)
    host.boot()
    return host


def test_a_press_and_release_send_p_then_r_with_the_time_held() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    panel.press("INS")
    host.advance(0.35)
    panel.release("INS")
    host.advance(0.01)
    assert [f.payload for f in host.events("b")] == ["INS;P;0000", "INS;R;0350"]


def test_holding_two_seconds_sends_h_once() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    panel.hold("SHF", 3.0)
    host.advance(3.5, step=0.1)
    assert [f.payload.split(";")[:2] for f in host.events("b")] == [
        ["SHF", "P"],
        ["SHF", "H"],
        ["SHF", "R"],
    ]
    assert host.events("b")[1].payload == "SHF;H;2000"
    assert host.events("b")[2].payload == "SHF;R;3000"


def test_a_short_hold_sends_no_h() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    panel.hold("HIT", 1.0)
    host.advance(1.5, step=0.1)
    assert [f.payload for f in host.events("b")] == ["HIT;P;0000", "HIT;R;1000"]


def test_the_key_switch_sends_its_position_and_sets_the_flag() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    panel.turn_key("SUP")
    host.advance(0.01)
    status = host.command("Q")
    assert [f.payload for f in host.events("y")] == ["SUP"]
    assert int(status.fields[1], 16) & (1 << 8)
    assert status.fields[4] == "SUP"


def test_the_led_command_is_kept_per_button() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    assert host.command("L", "INS;B;G").kind == "s"
    assert panel.led("INS") == Led("B", "G")
    assert panel.lit_buttons == ["INS"]


def test_all_sets_every_led_and_a_pulse_goes_off_after_two_seconds() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    host.command("L", "ALL;S;R")
    host.command("L", "DEA;P;A")
    assert len(panel.lit_buttons) == len(panel.leds)
    host.advance(2.1, step=0.1)
    assert panel.led("DEA") == Led("O", "A")
    assert panel.led("HIT") == Led("S", "R")


@pytest.mark.parametrize("payload", ["XXX;S;G", "INS;Q;G", "INS;S;Z", "INS;S", "ALL;SS;G"])
def test_a_bad_led_command_gets_a_nak(payload: str) -> None:
    host = booted(EmulatedPanel())
    assert (host.command("L", payload).kind, host.command("L", payload).payload) == (
        "n",
        "BAD_ARG",
    )


def test_the_text_lines_are_kept_and_too_long_text_is_refused() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    host.command("M", "PLACE BETS|BOX 3 INSURE?")
    assert panel.text == ("PLACE BETS", "BOX 3 INSURE?")
    assert host.command("M", "THIS LINE IS FAR TOO LONG|").payload == "BAD_ARG"
    assert panel.text == ("PLACE BETS", "BOX 3 INSURE?")


def test_the_buzzer_is_kept_for_its_length() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    host.command("W", "300")
    assert (panel.buzzer_ms, panel.buzzer_count) == (300, 1)
    assert panel.buzzing(host.now + 0.2)
    assert not panel.buzzing(host.now + 0.4)


def test_an_offline_panel_shows_offline_and_the_hosts_text_comes_back() -> None:
    panel = EmulatedPanel()
    host = FakeHost(panel, auto_ack=False)
    host.boot()
    host.command("M", "DEALING|")
    host.advance(5.5, step=0.5)
    offline_text = panel.text
    host.command("Q")
    assert offline_text == ("OFFLINE", "")
    assert panel.text == ("DEALING", "")


def test_render_shows_text_lit_buttons_and_key() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    host.command("M", "HELLO|WORLD")
    host.command("L", "OK_;S;G")
    picture = panel.render()
    assert "|HELLO           |" in picture
    assert "OK_:SG" in picture
    assert "key: RUN" in picture


def test_pressing_a_button_already_down_is_refused() -> None:
    panel = EmulatedPanel()
    panel.tick(0.0)
    panel.press("HIT")
    with pytest.raises(SimActionError, match="already pressed"):
        panel.press("HIT")


def test_releasing_a_button_not_down_is_refused() -> None:
    with pytest.raises(SimActionError, match="not pressed"):
        EmulatedPanel().release("HIT")


def test_an_unknown_button_is_refused_with_the_words_on_the_keys() -> None:
    with pytest.raises(SimConfigError, match=r"unknown button 'HITT'.*HIT STAND DOUBLE .* OK "):
        EmulatedPanel().press("HITT")


def test_an_unknown_key_position_is_refused() -> None:
    with pytest.raises(SimConfigError, match="key position"):
        EmulatedPanel().turn_key("OFF")


def test_a_reboot_turns_the_leds_off_and_blanks_the_text() -> None:
    panel = EmulatedPanel()
    host = booted(panel)
    host.command("L", "ALL;S;G")
    host.command("M", "HELLO|")
    panel.reboot()
    assert panel.lit_buttons == []
    assert panel.text == ("", "")


def test_a_press_before_the_panel_has_any_time_is_refused_with_what_to_do() -> None:
    with pytest.raises(SimActionError, match="serve it \\(or tick it once\\)"):
        EmulatedPanel().press("HIT")


def test_a_tap_needs_no_time() -> None:
    panel = EmulatedPanel()
    panel.tap("OK_")
    assert [f.payload for f in panel.queued_events if f.kind == "b"] == ["OK_;P;0000", "OK_;R;0000"]

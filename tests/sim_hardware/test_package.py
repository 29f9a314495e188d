"""The package's names are imported when first asked for (so that a small module of it, such as
the emulator's options for the command line, loads no device); each is still there."""

from __future__ import annotations

import importlib

import sim_hardware


def test_every_name_the_package_offers_is_found_where_it_says() -> None:
    homes = sim_hardware._HOMES
    assert sorted(homes) == sorted(sim_hardware.__all__)
    for name, home in homes.items():
        assert getattr(sim_hardware, name) is getattr(importlib.import_module(home), name)


def test_a_name_the_package_does_not_offer_is_an_attribute_error() -> None:
    assert not hasattr(sim_hardware, "EmulatedToaster")

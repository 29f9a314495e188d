"""A wrong pit token and a table without a view token are refused with different words (13.12)."""

from __future__ import annotations

import urllib.error
import urllib.request

import pytest

from .conftest import VIEW_TOKEN_HASH, WAIT_S, running_table, table_config


def _refusal(url: str) -> str:
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(url, timeout=WAIT_S)
    assert refused.value.code == 403
    return str(refused.value.read().decode())


def test_a_token_at_a_table_whose_pit_view_is_off_is_told_the_view_is_off() -> None:
    with running_table(table_config("nz-pontoon")) as table:
        text = _refusal(f"{table.url}api/state?token=anything")
    assert "the pit view is off at this table" in text
    assert "wrong" not in text


def test_a_wrong_token_is_told_it_is_wrong() -> None:
    loaded = table_config("nz-pontoon", display={"view_token_hash": VIEW_TOKEN_HASH})
    with running_table(loaded) as table:
        text = _refusal(f"{table.url}api/state?token=not-the-token")
    assert text.startswith("wrong view token")
    assert "off" not in text

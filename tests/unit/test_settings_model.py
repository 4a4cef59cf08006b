"""Display preferences (issue 34): defaults, validation of answers and cached copies, changes."""

from __future__ import annotations

import pytest
from app.people.settings_model import (
    DEFAULTS,
    changed,
    font_sizes,
    from_cache,
    normalise,
    sidebar_label,
    to_cache,
)

DARK = {"theme": "dark", "fontSize": 20, "sidebarCollapsed": True}


def test_font_sizes_are_12_to_24():
    assert font_sizes()[0] == 12 and font_sizes()[-1] == 24 and len(font_sizes()) == 13


def test_normalise_keeps_valid_values_and_defaults_each_bad_one():
    assert normalise(DARK) == DARK
    assert normalise(None) == DEFAULTS
    assert normalise({"theme": "blue", "fontSize": 99, "sidebarCollapsed": "yes"}) == DEFAULTS
    assert normalise({"theme": "light", "fontSize": True})["fontSize"] == 15
    assert normalise({"theme": "light"}) == {**DEFAULTS, "theme": "light"}


def test_changed_takes_one_valid_value_and_refuses_others():
    assert changed(DEFAULTS, "theme", "dark") == {**DEFAULTS, "theme": "dark"}
    assert changed(DEFAULTS, "fontSize", "20") == {**DEFAULTS, "fontSize": 20}  # a <select>
    assert changed(DEFAULTS, "fontSize", "99") == DEFAULTS
    assert changed(DEFAULTS, "fontSize", "big") == DEFAULTS
    assert changed(DEFAULTS, "theme", "blue") == DEFAULTS
    assert changed(DEFAULTS, "sidebarCollapsed", True)["sidebarCollapsed"] is True


@pytest.mark.parametrize("text", [None, "", "not json", "[1, 2]", '{"theme": 3}'])
def test_a_missing_or_damaged_cache_gives_the_defaults(text):
    assert from_cache(text) == DEFAULTS


def test_the_cache_round_trips():
    assert from_cache(to_cache(DARK)) == DARK


def test_the_toggle_says_what_it_does():
    assert sidebar_label(False) == "Hide the note list"
    assert sidebar_label(True) == "Show the note list"

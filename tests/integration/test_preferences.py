"""A user's display preferences (issue 34): defaults, saving, validation and sign-in, on
both databases."""

from __future__ import annotations

import pytest
from conftest import sign_in
from fastapi.testclient import TestClient

URL = "/api/account/preferences"
DEFAULTS = {"theme": "system", "fontSize": 15, "sidebarCollapsed": False}
DARK = {"theme": "dark", "fontSize": 20, "sidebarCollapsed": True}


def test_a_new_user_gets_the_defaults(alice_client):
    r = alice_client.get(URL)
    assert r.status_code == 200, r.text
    assert r.json() == DEFAULTS


def test_put_stores_per_user_and_lasts(app, alice_client, bob_client):
    r = alice_client.put(URL, json=DARK)
    assert r.status_code == 200, r.text
    assert r.json() == DARK
    assert alice_client.get(URL).json() == DARK
    assert sign_in(TestClient(app), "alice").get(URL).json() == DARK  # another sign-in
    assert bob_client.get(URL).json() == DEFAULTS  # kept per user
    light = {"theme": "light", "fontSize": 12, "sidebarCollapsed": False}
    assert alice_client.put(URL, json=light).json() == light  # a second save replaces
    assert alice_client.get(URL).json() == light


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"theme": "blue"}, "theme"),
        ({"fontSize": 99}, "fontSize"),
        ({"fontSize": 11}, "fontSize"),
        ({"fontSize": "20"}, "fontSize"),
        ({"sidebarCollapsed": "yes"}, "sidebarCollapsed"),
        ({"colour": "red"}, "colour"),
    ],
)
def test_bad_values_are_422_and_change_nothing(alice_client, change, field):
    alice_client.put(URL, json=DARK)
    r = alice_client.put(URL, json={**DARK, **change})
    assert r.status_code == 422, r.text
    assert field in r.json()["detail"]
    assert alice_client.get(URL).json() == DARK


def test_every_field_is_required(alice_client):
    r = alice_client.put(URL, json={"theme": "dark"})
    assert r.status_code == 422, r.text


def test_signed_out_is_401(client):
    assert client.get(URL).status_code == 401
    assert client.put(URL, json=DARK).status_code == 401


def test_openapi_describes_both_operations(app):
    paths = app.openapi()["paths"][URL]
    assert set(paths) == {"get", "put"}
    assert {"401", "422"} <= set(paths["put"]["responses"])
    schema = app.openapi()["components"]["schemas"]["Preferences"]
    assert set(schema["properties"]) == {"theme", "fontSize", "sidebarCollapsed"}
    assert schema["properties"]["theme"]["enum"] == ["light", "dark", "system"]

from __future__ import annotations

import dataclasses
import os
import re

import pytest

import scanner.scan as scan_module
from companion.web import create_app

if int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1")) > 1:
    # the suite's workers share the machine's cores with each other and the browser: a scanner's
    # threads beside the outlines would compete with them (a browser test's 5 s wait ran out once
    # so); the tests of those threads turn them on themselves
    scan_module.SETTINGS = dataclasses.replace(scan_module.SETTINGS, beside_outlines=False)

PIN = "424242"


@pytest.fixture
def app(tmp_path):
    return create_app(
        {
            "DATABASE": str(tmp_path / "t.sqlite3"),
            "CALIBRATION": str(tmp_path / "calibration.json"),
            "PROFILE": str(tmp_path / "deck-profile.json"),
            "REFEREE_PIN": PIN,
            "TESTING": True,
            "STREAM_TIMEOUT": 0.3,
            "KEEPALIVE": 0.1,
        }
    )


def csrf_of(client) -> str:
    page = client.get("/")
    return re.search(r'name="csrf-token" content="([^"]+)"', page.get_data(as_text=True)).group(1)


class Referee:
    def __init__(self, client):
        self.client = client
        self.token = csrf_of(client)
        assert client.post("/login", data={"pin": PIN, "csrf_token": self.token}).status_code == 302

    def post(self, path, json=None):
        return self.client.post(path, json=json, headers={"X-CSRF-Token": self.token})


@pytest.fixture
def referee(app):
    return Referee(app.test_client())

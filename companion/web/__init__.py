"""The phone dashboard: a Flask application factory in the manner of Flask's tutorial."""

from __future__ import annotations

import os
import secrets
import sys
from typing import Any

from flask import Flask, jsonify, request
from werkzeug.exceptions import HTTPException

from ..storage import open_storage
from .auth import LoginThrottle, SessionGeneration
from .checks import BoundedInt
from .live import Hub, ServiceError
from .service import MatchService
from .vision import Vision


def create_app(test_config: dict[str, Any] | None = None) -> Flask:
    """Build the app. Config: DATABASE (SQLite path), REFEREE_PIN, SECRET_KEY, STREAM_TIMEOUT."""
    app = Flask(__name__, instance_relative_config=True)
    app.config.from_mapping(
        DATABASE=os.path.join(app.instance_path, "tweak.sqlite3"),
        REFEREE_PIN=None,
        SECRET_KEY=None,
        STREAM_TIMEOUT=300.0,  # a live stream ends after this; the browser reconnects by itself
        KEEPALIVE=5.0,  # also how soon a stream whose phone has left is noticed and ended
        STREAM_LIMIT=1000,  # live streams at once; `tweak serve` keeps threads for the referee below its count
        SESSION_COOKIE_SAMESITE="Lax",
        JSON_SORT_KEYS=False,
        CALIBRATION=os.path.join(app.instance_path, "calibration.json"),  # saved by the first-run calibration
        PROFILE=os.path.join(app.instance_path, "deck-profile.json"),  # saved by the enrolment wizard
    )
    if test_config:
        app.config.from_mapping(test_config)
    os.makedirs(app.instance_path, exist_ok=True)
    if app.config["DATABASE"] != ":memory:":
        os.makedirs(os.path.dirname(os.path.abspath(app.config["DATABASE"])), exist_ok=True)
    if not app.config["SECRET_KEY"]:
        app.config["SECRET_KEY"] = _instance_secret(app.instance_path)
    if not app.config["REFEREE_PIN"]:
        app.config["REFEREE_PIN"] = f"{secrets.randbelow(10**6):06d}"

    app.url_map.converters["int"] = BoundedInt
    # (beside the database: the referee sessions belong to the matches it holds)
    sessions = None if app.config["DATABASE"] == ":memory:" else app.config["DATABASE"] + ".sessions.json"
    app.extensions["tweak_sessions"] = SessionGeneration(sessions, app.config["REFEREE_PIN"])
    app.extensions["tweak_logins"] = LoginThrottle()
    storage, damage = open_storage(app.config["DATABASE"])
    if damage:
        print(f"tweak serve: {damage}", file=sys.stderr)
    app.extensions["tweak_storage_damage"] = damage
    app.extensions["tweak"] = MatchService(storage, Hub())
    app.extensions["tweak_vision"] = Vision(app.config)

    from . import api, cameras, enrolment, pages, piles

    app.register_blueprint(pages.bp)
    for area in (api, cameras, piles, enrolment):  # the JSON API, a blueprint an area
        app.register_blueprint(area.bp)

    @app.errorhandler(ServiceError)
    def _service_error(err: ServiceError):
        default = {400: "bad_request", 403: "forbidden", 404: "not_found", 409: "conflict"}.get(err.status, "error")
        body = {"error": default, "message": err.message, **err.extra}
        return jsonify(body), err.status

    @app.errorhandler(HTTPException)
    def _http_error(err: HTTPException):
        if request.path.startswith("/api/") or request.is_json:
            return jsonify({"error": err.name.lower().replace(" ", "_"), "message": err.description}), err.code
        return err

    return app


def _instance_secret(instance_path: str) -> str:
    """A secret key kept in the instance folder so sessions survive a restart."""
    path = os.path.join(instance_path, "secret_key")
    if not os.path.exists(path):
        with open(path, "w") as handle:
            handle.write(secrets.token_hex(32))
        os.chmod(path, 0o600)
    with open(path) as handle:
        return handle.read().strip()


def get_service(app: Flask) -> MatchService:
    return app.extensions["tweak"]

"""Checks of what a request carries, before anything is done with it: strict JSON (no deep
nesting, no infinities, no lone surrogates), bounded ids in addresses, and PINs."""

from __future__ import annotations

import json
import math
from typing import Any

from flask import abort, request
from werkzeug.routing import IntegerConverter

MAX_JSON_DEPTH = 32  # requests nest 3 deep at most; deeper is an attack on the parser
MAX_ID = 2**63 - 1  # SQLite's integers


class JsonProblem(ValueError):
    """A request body that is not JSON the dashboard accepts; the message says what and where."""


def strict_json(text: str | bytes) -> Any:
    """``json.loads`` refusing what no phone sends: nesting deeper than MAX_JSON_DEPTH, numbers
    that do not fit a float (1e400), NaN and Infinity, and text that is not valid Unicode.

    >>> strict_json('{"goal": 100}')
    {'goal': 100}
    >>> strict_json("[" * 40 + "]" * 40)
    Traceback (most recent call last):
    ...
    companion.web.checks.JsonProblem: nested deeper than 32 levels
    """
    if isinstance(text, bytes):
        try:
            text = text.decode("utf-8")
        except UnicodeDecodeError as err:
            raise JsonProblem(f"not UTF-8 text (byte {err.start})") from None
    depth = max_depth = 0
    in_string = escaped = False
    for ch in text:  # nesting, counted before the (recursive) parser sees it
        if in_string:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                in_string = False
        elif ch == '"':
            in_string = True
        elif ch in "[{":
            depth += 1
            max_depth = max(max_depth, depth)
            if max_depth > MAX_JSON_DEPTH:
                raise JsonProblem(f"nested deeper than {MAX_JSON_DEPTH} levels")
        elif ch in "]}":
            depth -= 1

    def finite(value: str) -> float:
        number = float(value)
        if not math.isfinite(number):
            raise JsonProblem(f"the number {value[:20]} is too large")
        return number

    def refuse(value: str) -> Any:
        raise JsonProblem(f"{value} is not a number JSON allows")

    try:
        data = json.loads(text, parse_float=finite, parse_constant=refuse)
    except json.JSONDecodeError as err:
        raise JsonProblem(f"not JSON: {err.msg} at line {err.lineno} column {err.colno}") from None
    _check_text(data, "body")
    return data


def _check_text(value: Any, where: str) -> None:
    """Every string in ``value`` is storable text (no lone surrogates from \\ud800 escapes)."""
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            raise JsonProblem(f"{where}: not valid text (a lone surrogate)") from None
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_text(key, where)
            _check_text(item, f"{where}.{key}")
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _check_text(item, f"{where}[{i}]")


class BoundedInt(IntegerConverter):
    """``<int:...>`` in addresses, at most MAX_ID: a larger id is simply not found (404)."""

    def __init__(self, map, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("max", MAX_ID)
        super().__init__(map, *args, **kwargs)


def weak_pin(pin: str) -> str | None:
    """Why a referee PIN is too easy to guess, or None.

    >>> weak_pin("1"), weak_pin("111111"), weak_pin("123456"), weak_pin("402913")
    ('shorter than 6 digits', 'one digit repeated', 'a run of digits', None)
    """
    if len(pin) < 6 or not (pin.isascii() and pin.isdigit()):
        return "shorter than 6 digits" if len(pin) < 6 else "not digits only"
    if len(set(pin)) == 1:
        return "one digit repeated"
    steps = {int(b) - int(a) for a, b in zip(pin, pin[1:])}
    if steps in ({1}, {-1}):
        return "a run of digits"
    return None


def json_body() -> object:
    """The request's JSON body, strictly parsed (``strict_json``); 400 with the reason otherwise."""
    if not request.is_json:
        abort(400, description="send a JSON body (Content-Type: application/json)")
    try:
        return strict_json(request.get_data(cache=True))
    except JsonProblem as err:
        abort(400, description=f"the JSON body: {err}")


def optional_object() -> dict:
    """The request's JSON object where a body may be left out ({} then)."""
    if not request.get_data(cache=True):
        return {}
    data = json_body()
    if not isinstance(data, dict):
        abort(400, description="send a JSON object, or no body")
    return data


def json_object(expected: str) -> dict:
    """The request's JSON body, which must be an object; ``expected`` says which, in the error."""
    data = json_body()
    if not isinstance(data, dict):
        abort(400, description=f"send a JSON object: {expected}")
    return data

"""Game records, version 1 (RECORD.md): write them, read them, replay them.

A record is JSON Lines: a header, then per round a round line and its turn lines.

>>> import random
>>> from .cards import Edition
>>> from .setup import deal, default_colours
>>> lines = [header_line(["Ana", "Ben"], Edition.CLASSIC)]
>>> d = deal(2, default_colours(2), Edition.CLASSIC, random.Random(5))
>>> lines.append(round_line(["Ana", "Ben"], 1, 0, default_colours(2), d))
>>> report = replay("\\n".join(dumps(line) for line in lines))
>>> report["valid"], report["complete"]
(True, False)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Iterable, Sequence

from .cards import Card, Colour, DeckCard, Edition, TweakKind
from .errors import RuleError
from .match import Match
from .setup import MAX_PLAYERS, MIN_PLAYERS, Deal
from .state import Discard, Round, Sum, Turn, TweakUse, UseBomb, UseJoker, UseShifter, UseThief

RECORD_VERSION = 1
MAX_NAME_LENGTH = 40


class RecordError(RuleError):
    """A line of a record that is refused: the line number, the error code, the rule."""

    def __init__(self, line: int, error: RuleError) -> None:
        super().__init__(error.rule, error.message, code=error.code)
        self.line = line

    def __reduce__(self) -> tuple:
        return type(self), (self.line, RuleError(self.rule, self.message, self.code))

    def as_json(self) -> dict[str, Any]:
        return {"valid": False, "line": self.line, "error": self.code, "rule": self.rule, "message": self.message}


def dumps(obj: dict[str, Any]) -> str:
    """One record line: compact JSON, UTF-8 names kept as they are."""
    return json.dumps(obj, ensure_ascii=False)


# --- writing ---------------------------------------------------------------------------------


def header_line(players: Sequence[str], edition: Edition, goal: int | None = None) -> dict[str, Any]:
    line: dict[str, Any] = {"tweak_record": RECORD_VERSION, "edition": edition.value, "players": list(players)}
    if goal is not None:
        line["goal"] = goal
    return line


def round_line(players: Sequence[str], number: int, dealer: int, colours: Sequence[Colour], dealt: Deal) -> dict:
    return {
        "round": number,
        "dealer": players[dealer],
        "colours": [c.value for c in colours],
        "hands": {name: [c.name for c in hand] for name, hand in zip(players, dealt.hands)},
        "table": [c.name for c in dealt.table],
        "deck": [str(dc) for dc in dealt.deck],
        "tweak_pile": [k.value for k in dealt.tweak_pile],
    }


def tweak_json(players: Sequence[str], use: TweakUse) -> dict[str, Any]:
    if isinstance(use, UseJoker):
        return {"card": "joker", "delta": use.delta}
    if isinstance(use, UseThief):
        return {"card": "thief", "victim": players[use.victim], "stolen": use.stolen.name}
    if isinstance(use, UseBomb):
        return {"card": "bomb", "cards": {players[v]: c.name for v, c in use.cards}}
    return {"card": "shifter"}


def turn_line(players: Sequence[str], turn: Turn) -> dict[str, Any]:
    line: dict[str, Any] = {"turn": players[turn.player]}
    if turn.tweak is not None:
        line["tweak"] = tweak_json(players, turn.tweak)
    if isinstance(turn.play, Sum):
        line["sum"] = {"hand": turn.play.hand.name, "take": [c.name for c in turn.play.take]}
    else:
        line["discard"] = turn.play.card.name
    return line


# --- reading: the form of each line (bad_record) ---------------------------------------------


def _bad(message: str) -> RuleError:
    return RuleError(None, message, code="bad_record")


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _fields(obj: dict, what: str, required: Iterable[str], optional: Iterable[str] = ()) -> None:
    required = list(required)
    for key in required:
        if key not in obj:
            raise _bad(f"{what}: missing field {key!r}")
    allowed = set(required) | set(optional)
    for key in obj:
        if key not in allowed:
            raise _bad(f"{what}: unknown field {key!r}")


def _str(value: Any, where: str) -> str:
    if not isinstance(value, str):
        raise _bad(f"{where} must be a string, not {json.dumps(value)}")
    return value


def _list(value: Any, where: str) -> list:
    if not isinstance(value, list):
        raise _bad(f"{where} must be a list, not {json.dumps(value)}")
    return value


def _card(value: Any, where: str) -> Card:
    text = _str(value, where)
    if text in TweakKind._value2member_map_:
        raise _bad(f"{where}: {text} is a T! card; a numeric card is expected here")
    try:
        return Card.parse(text)
    except ValueError as err:
        raise _bad(f"{where}: {err}") from None


def _any_card(value: Any, where: str) -> Card | TweakKind:
    text = _str(value, where)
    if text in TweakKind._value2member_map_:
        return TweakKind(text)
    return _card(text, where)


def _player(value: Any, players: Sequence[str], where: str) -> int:
    name = _str(value, where)
    if name not in players:
        raise _bad(f"{where}: unknown player {name!r} (players: {', '.join(players)})")
    return players.index(name)


@dataclass
class Header:
    players: list[str]
    edition: Edition
    goal: int | None


def parse_header(obj: dict) -> Header:
    _fields(obj, "header", ("tweak_record", "edition", "players"), ("goal",))
    if not _is_int(obj["tweak_record"]) or obj["tweak_record"] != RECORD_VERSION:
        raise _bad(f"tweak_record must be {RECORD_VERSION}, not {json.dumps(obj['tweak_record'])}")
    try:
        edition = Edition.parse(_str(obj["edition"], "edition"))
    except ValueError as err:
        raise _bad(str(err)) from None
    players = _list(obj["players"], "players")
    if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
        raise _bad(f"players: 2 to 6 players (R2.1), not {len(players)}")
    for i, name in enumerate(players):
        _str(name, f"players[{i}]")
        if not name or len(name) > MAX_NAME_LENGTH:
            raise _bad(f"players[{i}]: a name has 1 to {MAX_NAME_LENGTH} characters, not {len(name)}")
    if len(set(players)) != len(players):
        twice = next(n for n in players if players.count(n) > 1)
        raise _bad(f"players: {twice!r} is listed twice")
    goal = obj.get("goal")
    if goal is not None and (not _is_int(goal) or goal <= 0):
        raise _bad(f"goal must be a positive whole number, not {json.dumps(goal)}")
    return Header(list(players), edition, goal)


@dataclass
class RoundLine:
    number: int
    dealer: int
    colours: list[Colour] | None
    deal: Deal
    deal_problem: RuleError | None = field(default=None)  # a bad_deal found while reading the form


def parse_round(obj: dict, players: Sequence[str]) -> RoundLine:
    _fields(obj, "round line", ("round", "dealer", "hands", "table", "deck", "tweak_pile"), ("colours",))
    number = obj["round"]
    if not _is_int(number):
        raise _bad(f"round must be a whole number, not {json.dumps(number)}")
    dealer = _player(obj["dealer"], players, "dealer")
    colours = None
    if "colours" in obj:
        colours = []
        for i, text in enumerate(_list(obj["colours"], "colours")):
            try:
                colours.append(Colour(_str(text, f"colours[{i}]")))
            except ValueError:
                raise _bad(f"colours[{i}]: unknown colour {text!r}") from None
    problem: RuleError | None = None

    def numeric(value: Any, where: str) -> Card | None:
        nonlocal problem
        card = _any_card(value, where)
        if isinstance(card, TweakKind):
            problem = problem or RuleError(
                "R2.4", f"{where}: the T! card {card.value} is not a numeric card", code="bad_deal"
            )
            return None
        return card

    hands_obj = obj["hands"]
    if not isinstance(hands_obj, dict):
        raise _bad(f"hands must be an object of player: cards, not {json.dumps(hands_obj)}")
    hands_by_seat: dict[int, list[Card]] = {}
    for name, cards in hands_obj.items():
        seat = _player(name, players, "hands")
        hand = [numeric(v, f"hands[{name!r}][{i}]") for i, v in enumerate(_list(cards, f"hands[{name!r}]"))]
        hands_by_seat[seat] = [c for c in hand if c is not None]
    table = [numeric(v, f"table[{i}]") for i, v in enumerate(_list(obj["table"], "table"))]
    deck: list[DeckCard] = []
    for i, value in enumerate(_list(obj["deck"], "deck")):
        text = _str(value, f"deck[{i}]")
        if text in TweakKind._value2member_map_:
            problem = problem or RuleError(
                "R2.4", f"deck[{i}]: the T! card {text} is not a numeric card", code="bad_deal"
            )
            continue
        try:
            deck.append(DeckCard.parse(text))
        except ValueError as err:
            raise _bad(f"deck[{i}]: {err}") from None
    pile: list[TweakKind] = []
    for i, value in enumerate(_list(obj["tweak_pile"], "tweak_pile")):
        card = _any_card(value, f"tweak_pile[{i}]")
        if isinstance(card, Card):
            problem = problem or RuleError("R1.4", f"tweak_pile[{i}]: {card.name} is not a T! card", code="bad_deal")
            continue
        pile.append(card)
    missing = [players[i] for i in range(len(players)) if i not in hands_by_seat]
    if missing and problem is None:
        problem = RuleError("R2.4", f"hands: no hand dealt to {', '.join(missing)}", code="bad_deal")
    hands = tuple(tuple(hands_by_seat.get(i, [])) for i in range(len(players)))
    dealt = Deal(hands, tuple(c for c in table if c is not None), tuple(deck), tuple(pile))
    return RoundLine(number, dealer, colours, dealt, problem)


def _parse_tweak(obj: Any, players: Sequence[str]) -> TweakUse:
    """The form of a ``tweak`` field; the Joker's delta range is a rule (bad_tweak), checked later."""
    if not isinstance(obj, dict):
        raise _bad(f"tweak must be an object, not {json.dumps(obj)}")
    if "card" not in obj:
        raise _bad("tweak: missing field 'card'")
    try:
        kind = TweakKind.parse(_str(obj["card"], "tweak.card"))
    except ValueError as err:
        raise _bad(f"tweak.card: {err}") from None
    if kind is TweakKind.JOKER:
        _fields(obj, "tweak (joker)", ("card", "delta"))
        if not _is_int(obj["delta"]):
            raise _bad(f"tweak.delta must be a whole number, not {json.dumps(obj['delta'])}")
        return UseJoker(obj["delta"])
    if kind is TweakKind.SHIFTER:
        _fields(obj, "tweak (shifter)", ("card",))
        return UseShifter()
    if kind is TweakKind.THIEF:
        _fields(obj, "tweak (thief)", ("card", "victim", "stolen"))
        victim = _player(obj["victim"], players, "tweak.victim")
        return UseThief(victim, _card(obj["stolen"], "tweak.stolen"))
    _fields(obj, "tweak (bomb)", ("card", "cards"))
    cards = obj["cards"]
    if not isinstance(cards, dict):
        raise _bad(f"tweak.cards must be an object of player: card, not {json.dumps(cards)}")
    pairs = sorted(
        (_player(name, players, "tweak.cards"), _card(card, f"tweak.cards[{name!r}]")) for name, card in cards.items()
    )
    return UseBomb(tuple(pairs))


@dataclass
class TurnLine:
    player: int
    play: Sum | Discard | None  # None: neither or both (no_action)
    tweak: TweakUse | None


def parse_turn(obj: dict, players: Sequence[str]) -> TurnLine:
    _fields(obj, "turn line", ("turn",), ("sum", "discard", "tweak"))
    player = _player(obj["turn"], players, "turn")
    tweak = None
    if "tweak" in obj:
        tweak = _parse_tweak(obj["tweak"], players)
    plays: list[Sum | Discard] = []
    if "sum" in obj:
        sum_obj = obj["sum"]
        if not isinstance(sum_obj, dict):
            raise _bad(f"sum must be an object with hand and take, not {json.dumps(sum_obj)}")
        _fields(sum_obj, "sum", ("hand", "take"))
        take = tuple(_card(v, f"sum.take[{i}]") for i, v in enumerate(_list(sum_obj["take"], "sum.take")))
        plays.append(Sum(_card(sum_obj["hand"], "sum.hand"), take))
    if "discard" in obj:
        plays.append(Discard(_card(obj["discard"], "discard")))
    return TurnLine(player, plays[0] if len(plays) == 1 else None, tweak)


# --- replay -----------------------------------------------------------------------------------


class Replayer:
    """Feeds record lines, one at a time, into a :class:`Match`; the first bad line raises."""

    def __init__(self) -> None:
        self.header: Header | None = None
        self.match: Match | None = None
        self.line_number = 0

    def feed(self, text: str | bytes) -> None:
        self.line_number += 1
        try:
            self._feed(text)
        except RuleError as err:
            raise RecordError(self.line_number, err) from None

    def _feed(self, text: str | bytes) -> None:
        if isinstance(text, bytes):
            try:
                text = text.decode("utf-8")
            except UnicodeDecodeError as err:
                raise _bad(f"not UTF-8 text (byte {err.start + 1})") from None
        if not text.strip():
            raise _bad("blank line: every line is one JSON object")
        try:
            obj = json.loads(text)
        except (json.JSONDecodeError, RecursionError) as err:
            raise _bad(f"not JSON: {getattr(err, 'msg', err)} at column {getattr(err, 'colno', '?')}") from None
        if not isinstance(obj, dict):
            raise _bad(f"a line is a JSON object, not {type(obj).__name__}")
        if self.match is None:
            if "tweak_record" not in obj:
                raise _bad('the first line must be the header ({"tweak_record": 1, ...})')
            self.header = parse_header(obj)
            self.match = Match(self.header.players, self.header.edition, self.header.goal)
            return
        players = self.match.players
        if "tweak_record" in obj:
            raise _bad("a header may only be the first line")
        if "round" in obj:
            line = parse_round(obj, players)
            match = self.match
            if match.is_over():
                match.start_round(line.deal, line.dealer)  # raises match_over
            if match.current is not None and not match.current.is_over():
                match.start_round(line.deal, line.dealer)  # raises round_not_over
            if line.deal_problem is not None:
                raise line.deal_problem
            match.start_round(line.deal, line.dealer, line.colours, line.number)
            return
        if "turn" in obj:
            turn = parse_turn(obj, players)
            rnd = self.match.current
            if rnd is None:
                raise _bad("a turn before the first round line")
            if turn.play is None:
                rnd._check_player(Turn(turn.player, Discard(Card.parse("red-1"))))
                raise RuleError(
                    "R4",
                    f"a turn has exactly one of sum or discard ({players[turn.player]}'s has "
                    f"{'both' if 'sum' in obj and 'discard' in obj else 'neither'})",
                    code="no_action",
                )
            self.match.push(Turn(turn.player, turn.play, turn.tweak))
            return
        raise _bad("unknown line: expected a header, a round line or a turn line")

    @property
    def current_round(self) -> Round | None:
        return self.match.current if self.match else None

    def report(self) -> dict[str, Any]:
        """The valid-record answer of ``tweak replay`` (RECORD.md)."""
        match = self.match
        assert match is not None
        players = match.players
        winner = match.winner
        return {
            "valid": True,
            "complete": match.current is None or match.current.is_over(),
            "rounds": [
                {"round": r.number, "scores": dict(zip(players, r.scores)), "tweaks": dict(zip(players, r.tweaks))}
                for r in match.results
            ],
            "totals": dict(zip(players, match.totals)),
            "winner": None if winner is None else players[winner],
        }


def split_lines(data: str | bytes) -> list:
    """Lines of a record; one final newline is fine, an empty file has no lines."""
    lines = data.split(b"\n" if isinstance(data, bytes) else "\n")
    if lines and not lines[-1]:
        lines.pop()
    return lines


def replay(data: str | bytes) -> dict[str, Any]:
    """Check a whole record; the answer of ``tweak replay`` as a dict (RECORD.md)."""
    replayer = Replayer()
    lines = split_lines(data)
    if not lines:
        return RecordError(1, _bad("empty file: the first line must be the header")).as_json()
    try:
        for line in lines:
            replayer.feed(line)
    except RecordError as err:
        return err.as_json()
    return replayer.report()


def read_record(data: str | bytes) -> Replayer:
    """Read a valid record into a replayed match; raises :class:`RecordError` on the first bad line."""
    replayer = Replayer()
    lines = split_lines(data)
    if not lines:
        raise RecordError(1, _bad("empty file: the first line must be the header"))
    for line in lines:
        replayer.feed(line)
    return replayer

"""End-to-end evaluation of the referee on ``virtual:SEED`` rounds: rendered frames, the real
scanner and tracker, move inference, compared with the bots' true moves."""

from __future__ import annotations

import random
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace
from typing import Any

from companion.engine.errors import RuleError
from companion.engine.setup import deal
from companion.engine.state import Discard, Round, Turn, UseJoker, UseShifter

from .infer import Event, Referee
from .observed import ObservedTurn
from .run import Timed, referee_frames
from .view import TableView
from .virtual import VirtualRound, centre_zone, frames, perfect_views, play_round

NAMES = ["Ana", "Ben", "Cai", "Dee", "Eva", "Fil"]


def same_turn(a: Turn, b: Turn) -> bool:
    """Turns are the same move: cards taken compared as multisets (their order does not matter)."""
    if a.player != b.player or type(a.play) is not type(b.play) or not _same_tweak(a, b):
        return False
    if isinstance(a.play, Discard):
        return a.play == b.play
    return a.play.hand == b.play.hand and Counter(a.play.take) == Counter(b.play.take)


def _same_tweak(a: Turn, b: Turn) -> bool:
    if a.tweak is None or b.tweak is None:
        return a.tweak is b.tweak
    if type(a.tweak) is not type(b.tweak):
        return False
    if isinstance(a.tweak, UseJoker) and isinstance(a.play, Discard):
        return True  # a Joker's delta with a discard changes nothing and cannot be seen
    if hasattr(a.tweak, "cards"):
        return sorted(a.tweak.cards, key=repr) == sorted(b.tweak.cards, key=repr)
    return a.tweak == b.tweak


@dataclass
class RoundReport:
    seed: int
    players: int
    moves: int  # true moves
    right: int = 0  # inferred right without asking
    asked: int = 0  # moves that became a question
    asked_right: int = 0  # ... whose first reading was right
    answered_right: int = 0  # ... right once the referee answered (the truth among the readings)
    wrong_silent: int = 0  # wrong and not asked: must be 0
    refused: int = 0
    table_fixed: int = 0  # table cards the referee corrected (a refill card misread) before tapping
    tweak_fixed: int = 0  # T! cards won that the referee corrected (their face misread) before tapping
    target_fixed: int = 0  # targets the referee set from the deck's back (a draw the camera missed) before tapping
    tapped: int = 0  # refused moves, or asked ones with no right reading, the referee tapped in (asked)
    rewritten: int = 0  # rounds the referee rewrote as played when a move tapped in did not fit
    undone: int = 0  # moves asked, none of whose readings was right, taken back: the move was not made yet
    missing: int = 0
    scores_exact: bool = False
    scores_exact_answered: bool = False
    latencies: list[float] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)  # each silent wrong move: "k: got / truth"
    silent: list[tuple[float, bool]] = field(default_factory=list)  # each move not asked: (confidence, right)
    reasons: Counter = field(default_factory=Counter)  # each question's reason (its first), how often
    seconds: float = 0.0
    frames: int = 0

    def as_json(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items() if k not in ("latencies", "silent")}


def evaluate_round(
    seed: int,
    players: int,
    scanner: Any,
    answer_with_truth: bool,
    style: Any = None,
    views: Callable[[VirtualRound], list[TableView]] | None = None,
) -> RoundReport:
    """Referee one virtual round. ``answer_with_truth``: a referee person answers each question
    rightly when the right reading is among those offered (the dashboard's tap), and acts on what
    the table shows (each frame's ``turns_done``) as one at the table would: after a refusal, or
    a question none of whose readings is right, taps in the moves made since the referee's last
    (a move not made yet is taken back, or tapped once made), and rewrites the round as played
    where a move tapped in does not fit even after correcting the table and the target; else the
    first reading is taken. ``style``: the deck's art (``virtual.frames``). ``views``: the
    round's table views to referee in place of rendered frames scanned (``virtual.missed_views``):
    move inference alone."""
    names = NAMES[:players]
    dealer = seed % players
    virtual = play_round(names, dealer, seed)
    truth = virtual.truth.history
    report = RoundReport(seed, players, len(truth))

    def answer(question: Event) -> int | None:
        if not answer_with_truth:
            return 0
        # the move asked about is the one after the referee's round as it stands (the dashboard
        # names it), not after the moves this harness has taken in yet (a view may settle several)
        k = len(referee.seen.turns) if referee.seen is not None else len(referee_turns)
        for i, reading in enumerate(question.readings):
            if k < len(truth) and same_turn(reading.observed.turn, truth[k]):
                return i
        return 0

    referee_turns: list[Turn] = []
    confidences: list[float] = []  # the move event's confidence, for each of referee_turns
    asked_at: set[int] = set()
    started = time.perf_counter()
    referee = Referee(names, dealer, answer=answer)
    # a refusal of a move the table does not show made yet: the person waits, and taps the moves in
    # once the table shows them (before the next still moment is refereed)
    owed: list[int] = []

    def tap_made(frame_time: float) -> int:
        """A person taps in every move the table shows made since the referee's last (the referee
        may be several moves behind the table when it asks or refuses); how many."""
        seen = referee.seen
        count = 0
        for j in range(len(referee_turns), min(done.get(frame_time, len(truth)), len(truth))):
            fits = _tap(seen, truth[j]) or _tap_fixed(seen, truth[j], _round_at(virtual, j), report)
            if not (fits or (_rewrite(seen, virtual, j, report) and _tap(seen, truth[j]))):
                break
            report.tapped += 1
            asked_at.add(j)
            referee_turns.append(truth[j])
            confidences.append(1.0)
            count += 1
        return count

    def tap_after_refusal(frame_time: float) -> None:
        if tap_made(frame_time):
            referee.resync(referee.seen)
        else:  # the dashboard refuses the move tapped in (CameraRound.play)
            referee.doubt_round()

    def settle_owed(frame_time: float) -> None:
        if owed and len(referee_turns) == owed[0] and done.get(frame_time, 0) > owed[0]:
            tap_after_refusal(frame_time)
        if owed and (len(referee_turns) != owed[0] or done.get(frame_time, 0) > owed[0]):
            owed.clear()  # (tapped, or the referee went on by itself)

    if views is None:
        frame_list = list(frames(virtual, style=style))
        report.frames = len(frame_list)
        done = {f.time: f.turns_done for f in frame_list}
        feed = _before_each(((f.time, f.image) for f in frame_list), settle_owed)
        decided = referee_frames(feed, scanner, names, dealer, zones=centre_zone(virtual), referee=referee)
    else:
        done = {view.time: turns for view, (_, turns) in zip(perfect_views(virtual), virtual.states, strict=True)}
        view_list = views(virtual)
        report.frames = len(view_list)
        decided = _seen(referee, view_list, settle_owed)

    last = None
    dropped: tuple[float, bool] | None = None
    for timed in decided:
        event = timed.event
        k = len(referee_turns)
        made = done.get(timed.frame_time, len(truth)) > k  # (the source's end shows every move made)
        if event.kind == "refused" and answer_with_truth and k < len(truth) and referee.seen is not None:
            # the dashboard shows the refusal; the referee taps the moves made, first correcting
            # the table cards or the target shown wrong where a move does not fit
            if not made:
                owed[:] = [k]
            else:
                tap_after_refusal(timed.frame_time)
        if event.kind == "question":
            asked_at.add(len(referee_turns))
            report.reasons[event.data["reason"]] += 1
            k = len(referee_turns)
            if event.readings and k < len(truth) and same_turn(event.readings[0].observed.turn, truth[k]):
                report.asked_right += 1
        elif event.kind == "refused":
            report.refused += 1
        elif event.kind == "move":
            report.latencies.append(timed.still_to_verdict_ms)
        elif event.kind == "round_over":
            last = event.data["scores"]
        elif event.kind == "record":
            pass
        if event.kind == "move":
            if dropped == (timed.frame_time, True):
                continue  # a move read after one the referee replaced in the same view: taken back
            got = _turn_of(event)
            index = event.data["n"] - 1  # (a view may have settled more moves after it)
            if answer_with_truth and k in asked_at and k < len(truth) and not same_turn(got, truth[k]):
                if not made:
                    # none of the readings offered was the move, which is not made yet: the
                    # referee takes the move back (CameraRound.undo) and waits for it
                    referee.seen.rebuild(list(referee.seen.turns)[:index])
                    referee.resync(referee.seen)
                    asked_at.discard(k)
                    report.undone += 1
                    dropped = (timed.frame_time, True)
                    continue
                # none of the readings offered was the move: the referee taps the right one instead
                # (and takes back what was read after it), then the moves made since
                fixed = replace(event.readings[0].observed, turn=truth[k])
                if _tap_instead(referee.seen, index, fixed, _round_at(virtual, index), report):
                    report.tapped += 1
                    referee_turns.append(truth[k])
                    confidences.append(event.data.get("confidence", 1.0))
                    tap_made(timed.frame_time)
                    referee.resync(referee.seen)
                    dropped = (timed.frame_time, True)
                    continue
                referee.doubt_round(index)  # the dashboard refuses the correction (CameraRound.correct)
            elif answer_with_truth and k in asked_at and k < len(truth):
                referee.confirm(index + 1)  # the referee answered with the move played (CameraRound.confirm)
            referee_turns.append(got)
            confidences.append(event.data.get("confidence", 1.0))
    report.seconds = time.perf_counter() - started
    for k, got in enumerate(referee_turns[: len(truth)]):
        ok = same_turn(got, truth[k])
        if k in asked_at:
            report.asked += 1
            report.answered_right += ok
        elif ok:
            report.right += 1
        if k not in asked_at:
            report.silent.append((confidences[k], ok))
        if k not in asked_at and not ok:
            report.wrong_silent += 1
            report.wrong.append(f"{k}: {got} / {truth[k]}")
    report.missing = max(0, len(truth) - len(referee_turns))
    true_scores = dict(zip(names, virtual.truth.scores()))
    if last is None and referee.seen is not None and referee.seen.round.is_over():
        last = dict(zip(names, referee.seen.scores()))  # ended by a move tapped in: the dashboard scores it
    report.scores_exact = last == true_scores
    return report


def _before_each(feed: Iterator[tuple[float, Any]], act: Callable[[float], None]) -> Iterator[tuple[float, Any]]:
    """``feed``'s frames, ``act(time)`` run before each is refereed (a person tapping meanwhile)."""
    for now, frame in feed:
        act(now)
        yield now, frame


def _seen(referee: Referee, views: list[TableView], act: Callable[[float], None]) -> Iterator[Timed]:
    """``referee_frames``'s events for views given, not scanned (each decided at once), ``act(time)``
    run before each is refereed."""
    for view in views:
        act(view.time)
        for event in referee.see(view):
            yield Timed(event, view.time, 0.0)
    for event in referee.finish():
        yield Timed(event, -1.0, 0.0)


def _tap_instead(seen: Any, index: int, fixed: ObservedTurn, truth: Round, report: RoundReport) -> bool:
    """The referee taps the move made (``fixed``) in place of move ``index`` and those after it:
    as read, or plain, or after correcting the table cards shown wrong or the target (as after a
    refusal; ``truth``: the true round before the move). False, with the round unchanged, when
    none of these fits."""
    before = list(seen.turns)
    for observed in (fixed, ObservedTurn(fixed.turn)):
        try:
            seen.rebuild([*before[:index], observed])
            return True
        except RuleError:
            seen.rebuild(before)
    deal, targets = seen.initial_table, dict(seen.targets)
    seen.rebuild(before[:index])
    if _tap_fixed(seen, fixed.turn, truth, report):
        return True
    # (a correction of a dealt card changes the deal the turns replay on; a target set, the targets)
    seen.initial_table, seen.targets = deal, targets
    seen.rebuild(before)
    return False


def _tap(seen: Any, turn: Turn) -> bool:
    """The referee taps ``turn`` in; False when the round as seen cannot hold it."""
    try:
        seen.push(ObservedTurn(turn))
    except RuleError:
        return False
    return True


def _tap_fixed(seen: Any, turn: Turn, truth: Round, report: RoundReport) -> bool:
    """The referee taps ``turn`` in after correcting what the dashboard shows wrong before it
    (``truth``: the true round then): the table cards (a refill card misread), else the target (a
    draw the camera missed), else the T! cards held (one won by a TWEAK misread). False when the
    round as seen still cannot hold it."""
    return (
        (_fix_table(seen, Counter(truth.table), report) and _tap(seen, turn))
        or (_fix_target(seen, truth.target, report) and _tap(seen, turn))
        or (_fix_tweaks(seen, truth, report) and _tap(seen, turn))
    )


def _rewrite(seen: Any, virtual: Any, turns: int, report: RoundReport) -> bool:
    """The last resort of a referee whose move tapped in the dashboard refuses even after the
    table and target are put right: every move and card turned so far is corrected to what was
    played (``CameraRound.correct`` and ``correct_table``, one by one), the first ``turns`` moves.
    False, with the round unchanged, when the moves as played do not replay."""
    rnd = _round_at(virtual, 0)
    dealt = tuple(rnd.table)
    before = (list(seen.turns), seen.initial_table, dict(seen.targets))
    observed = []
    targets = {0: rnd.target}
    for turn in virtual.truth.history[:turns]:
        draws_before = len(rnd.draws)
        shifter = isinstance(turn.tweak, UseShifter) and rnd.deck_left
        shifted = rnd.deck[rnd.deck_pos].card if shifter else None
        shifted_target = rnd.deck[rnd.deck_pos + 1].back if shifter and rnd.deck_left > 1 else None
        tweaks_before = rnd.tweak_pos
        rnd.push(turn)
        drawn = rnd.draws[draws_before + (1 if shifter else 0) :]
        reveals = tuple(rnd.deck[index].card for index, player in drawn if player is None)
        after = rnd.target if rnd.deck_left else None
        won = rnd.tweak_pile[tweaks_before] if rnd.tweak_pos > tweaks_before else None  # (the T! card won, face up)
        observed.append(ObservedTurn(turn, reveals, shifted, shifted_target, won, target_after=after))
        if after is not None:
            targets[len(observed)] = after
    seen.initial_table = dealt
    seen.targets = targets
    try:
        seen.rebuild(observed)
    except RuleError:
        seen.initial_table, seen.targets = before[1], before[2]
        seen.rebuild(before[0])
        return False
    report.rewritten += 1
    return True


def _round_at(virtual: Any, turns: int) -> Round:
    """The true round after ``turns`` turns (the virtual round's deal, replayed)."""
    rnd = Round(virtual.players, virtual.dealer, deal(len(virtual.players), virtual.colours, virtual.edition,
                random.Random(virtual.seed)), virtual.edition)  # fmt: skip
    for turn in virtual.truth.history[:turns]:
        rnd.push(turn)
    return rnd


def _fix_table(seen: Any, truth: Counter, report: RoundReport) -> bool:
    """The referee corrects the table cards the dashboard shows wrong (ObservedRound.correct_table),
    one at a time, looking at the dashboard again after each: a correction recomputes the round,
    and with it the guesses for the other cards never seen (the card shown in a guess's place may
    change)."""
    fixed = False
    for _ in range(len(truth) + len(seen.round.table)):
        wrong = Counter(seen.round.table) - truth
        right = truth - Counter(seen.round.table)
        if not wrong or sum(wrong.values()) != sum(right.values()):
            break
        shown, actual = min(wrong, key=str), min(right, key=str)
        try:
            seen.correct_table(shown, actual)
        except RuleError:
            break
        report.table_fixed += 1
        fixed = True
    return fixed


def _fix_tweaks(seen: Any, truth: Round, report: RoundReport) -> bool:
    """The referee corrects the T! cards won that the dashboard shows of another kind than the
    players hold (ObservedRound.correct_tweak, R4.2), one at a time, looking again after each."""
    fixed = False
    for player, held in enumerate(truth.tweaks_held):
        for _ in range(len(held)):
            wrong = Counter(seen.round.tweaks_held[player]) - Counter(held)
            right = Counter(held) - Counter(seen.round.tweaks_held[player])
            if not wrong or not right:
                break
            try:
                seen.correct_tweak(player, min(wrong, key=str), min(right, key=str))
            except RuleError:
                break
            report.tweak_fixed += 1
            fixed = True
    return fixed


def _fix_target(seen: Any, target: int, report: RoundReport) -> bool:
    """The referee sets the target the deck's back shows (CameraRound.set_target, R3.1) where the
    round as seen has another (a draw the camera missed between two quick moves)."""
    if seen.round.deck_left == 0 or seen.round.target == target:
        return False
    try:
        seen.observe_target(target)
    except RuleError:
        return False
    report.target_fixed += 1
    return True


def _turn_of(event: Event) -> Turn:
    return event.readings[0].observed.turn

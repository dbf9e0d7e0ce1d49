"""The passage numbers an answer's prose points to, in every form a reader takes for one (pure).

``[2]``, ``[1, 3]`` and ranges, ``[1-3]`` or ``[1–3]``, are what the model is asked to write. A
reader takes four other forms for the same thing, so they are read too, lest an answer be shown
pointing at a passage nobody checked:

- a footnote, ``seven[^2]``;
- a number in words, "as passage 2 says", "passages 2 and 3", "passages 1-3";
- a superscript where a footnote marker stands, ``seven²``, ``seven.²``;
- a number in parentheses where it closes a clause, ``seven (2).``.

The first two are always passage numbers. The last two may just as well be prose: a value
("the default (30).", ``cm²``), an exponent or a step. So a superscript is no marker where it
raises something: a number (``10⁶``), a one-letter name (``n²``, ``x²``, ``m/s²``), a unit of
length or time (``cm²``, ``ft²``, ``ms²``) or a bracketed expression of those (``(n+1)²``).
A number in parentheses is no marker where it numbers or names a step: followed by more words
("(1) install it, (2) tune it"), after a word such as step, item, point or option ("repeat
step (2)."), or where the answer itself numbers its steps or items with that number (a numbered
list, or "(1) ... (2) ..." inline), which makes "as in (2)." its own step. And either counts
only when every number in it names a passage supplied; any other is a value.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_DASHES = r"[-\u2010-\u2015\u2212]"
_MARKED = rf"\d{{1,6}}(?:\s*{_DASHES}\s*\d{{1,6}})?"
_LISTED = rf"{_MARKED}(?:\s*,\s*{_MARKED})*"
# In words: "passage 2", "passages 2 and 3", "passages 1, 2 or 4", "passages 1 to 3".
_WORD_ITEM = rf"#?\d{{1,6}}(?:\s*(?:{_DASHES}|\bto\b|\bthrough\b)\s*#?\d{{1,6}})?"
_WORD_JOIN = r"\s*(?:,\s*(?:and|or)\b|,|\band\b|\bor\b|&)\s*"
_SUPER_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"  # ⁰ to ⁹
_SUPERSCRIPTS = str.maketrans(f"{_SUPER_DIGITS}\u207b\u02d2", "0123456789-,")  # ⁻ and ˒ too
# Up to six digits, as in [n]: a longer run is no passage's number (nor one to convert).
_SUPER = f"[{_SUPER_DIGITS}]{{1,6}}(?![{_SUPER_DIGITS}])"
_MARKER = re.compile(
    # [2] or [1-3, 5], though not after a word (items[6] indexes); a footnote, seven[^2], may be.
    rf"(?:(?<!\w)\[|\[\^)(?P<bracket>{_LISTED})\]"
    # passage 2, passages 2 and 3: not one written as a decimal (2.5) or run into a word.
    rf"|(?<![\w-])passages?\s+(?P<worded>{_WORD_ITEM}(?:{_WORD_JOIN}{_WORD_ITEM})*)"
    r"(?!\w|[.,]\d)"
    # ² or ¹˒³ or ²⁻³, whole: not inside a longer run, nor after a digit (10⁶); what else it
    # may raise is decided by _raises.
    rf"|(?<![\d{_SUPER_DIGITS}])"
    rf"(?P<superscript>{_SUPER}(?:\s*[,\u02d2\u207b-]\s*{_SUPER})*)"
    # (2) or (1) (3), not after a word (f(2) is a call) or a link's text ([see](2)). It counts
    # only when nothing but punctuation, or the line's end, follows (``closes``); the empty
    # alternative matches a run that closes nothing too, an enumeration, so that the search
    # goes on after it rather than trying it again from each of its numbers: that would read
    # a long run once for every number in it.
    rf"|(?<![\w\]])(?P<parenthesised>\({_LISTED}\)(?:[ \t]*\({_LISTED}\))*)"
    rf"(?=[ \t]*(?P<closes>[.,;:!?)\]\[{_SUPER_DIGITS}]|$)|)",
    re.M | re.I,
)
_PARENTHESES = str.maketrans("()", ",,")
_NUMBER = re.compile(r"\d+")
# A range wider than this stands for its two ends only: what lies between is listed no further,
# and a model's reply cannot make the checks count through millions of numbers.
_RANGE_LIMIT = 1000
# How far back the words before a superscript or parenthesised number are read: far enough for
# a unit or "steps (1), (2) and", and bounded, so that reading them costs the same anywhere.
_LOOK_BACK = 80
# The word a superscript follows, and the bracketed group it follows, when it follows one.
_WORD_BEFORE = re.compile(r"[^\W\d_]+$")
_GROUP_BEFORE = re.compile(r"\(([^()]*)\)$|\[([^\[\]]*)\]$")
_TWO_LETTERS = re.compile(r"[^\W\d_]{2}")
# Units an exponent raises; case matters, as it does for the units themselves (a metre is
# ``m``, a megabyte ``MB``). One-letter ones (m, s) are one-letter names already.
_UNIT = re.compile(r"(?:[kcmdnpµμ]|da)m|[mnµμ]s|sec|in|ft|yd|mi|px|pt|r?em")
# "step (2)", "items (1) and (2)", "option no. (3)": the words that name a step, not a passage.
_STEP_NAMED = re.compile(
    r"\b(?:steps?|items?|points?|options?|stages?|phases?|parts?|cases?|lines?|rules?"
    r"|clauses?|conditions?|entr(?:y|ies)|rows?|columns?|examples?|equations?|eq|figures?|fig"
    r"|tables?|numbers?|no|questions?|choices?|alternatives?|methods?|tasks?)"
    r"\.?\s*(?:\([\d,\s\u2010-\u2015\u2212-]*\)\s*(?:,|\band\b|\bor\b|\bto\b|&)?\s*)*$",
    re.I,
)
_RANGE_WORD = re.compile(r"\b(?:to|through)\b", re.I)
_JOIN_WORD = re.compile(r"\b(?:and|or)\b|&", re.I)


def _marked(item: str) -> range | tuple[int, ...]:
    """The passage numbers one item of a marker stands for: ``2``, or every one of ``1-3``."""
    ends = [int(n) for n in _NUMBER.findall(item)]
    low, high = min(ends), max(ends)
    return range(low, high + 1) if high - low < _RANGE_LIMIT else (low, high)


def _listed(text: str) -> list[int]:
    """Every number a list of items (``2, 4-6``) stands for, once each."""
    items = (item for item in text.split(",") if item.strip())
    return list(dict.fromkeys(n for item in items for n in _marked(item)))


def _raises(before: str) -> bool:
    """Whether a superscript after ``before`` is an exponent rather than a footnote marker."""
    word = _WORD_BEFORE.search(before)
    if word is not None:
        return len(word.group()) == 1 or _UNIT.fullmatch(word.group()) is not None
    group = _GROUP_BEFORE.search(before)
    if group is not None:  # (n+1)², f(x)²; not (see the guide)²
        return _TWO_LETTERS.search(group.group(1) or group.group(2) or "") is None
    return False


def _enumerated(m: re.Match[str]) -> list[int]:
    """The numbers of an inline enumeration, "(1) install it", or none for any other marker."""
    if m["parenthesised"] is None or m["closes"] is not None:
        return []
    return _listed(m["parenthesised"].translate(_PARENTHESES))


def _marker_numbers(m: re.Match[str], supplied: int | None, steps: frozenset[int]) -> list[int]:
    """The passage numbers one marker stands for, or none where it is prose (module docstring).

    ``[n]``, ``[^n]`` and "passage n" are markers whatever they say. A superscript or a number
    in parentheses is read only when every number in it is a passage supplied (``supplied``
    passages; any, when ``None``), so an answer is not declined for writing a value that way.
    """
    before = m.string[max(0, m.start() - _LOOK_BACK) : m.start()]
    if m["parenthesised"] is not None:
        if m["closes"] is None or _STEP_NAMED.search(before):  # an enumeration's or step's (1)
            return []
        numbers = _listed(m["parenthesised"].translate(_PARENTHESES))
        own_step = not steps.isdisjoint(numbers)
        return numbers if not own_step and _supplied(numbers, supplied) else []
    if m["superscript"] is not None:
        if _raises(before):
            return []
        numbers = _listed(m["superscript"].translate(_SUPERSCRIPTS))
        return numbers if _supplied(numbers, supplied) else []
    if m["worded"] is not None:
        return _listed(_JOIN_WORD.sub(",", _RANGE_WORD.sub("-", m["worded"].replace("#", ""))))
    return _listed(m["bracket"])


def _supplied(numbers: Iterable[int], supplied: int | None) -> bool:
    return supplied is None or all(1 <= n <= supplied for n in numbers)


def passage_numbers(prose: str, supplied: int | None, listed: Iterable[int] = ()) -> list[int]:
    """The passage numbers ``prose`` (an answer with its code taken out) points to, in order.

    ``supplied``: how many passages the answer was drafted from; ``listed``: the numbers of its
    numbered lists' items, which are its own steps.
    """
    found = list(_MARKER.finditer(prose))
    steps = frozenset((*listed, *(n for m in found for n in _enumerated(m))))
    numbers = (_marker_numbers(m, supplied, steps) for m in found)
    return list(dict.fromkeys(n for each in numbers for n in each))

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
length or time (``cm²``, ``ft²``, ``ms²``) or a bracketed expression of those (``(n+1)²``);
a bracket left blank where its code was taken out, ``(`--force`)²``, raises nothing. A number
in parentheses is no marker where it numbers or names a step: followed by more words ("(1)
install it, (2) tune it"), unless a word pointing to a source comes before it, or before the
list it closes ("see (2) for details", "see (1), (2) for details", "as in (2)", "per (2)"),
after a word such as step, item, point or option ("repeat step (2)."), after a plural one only
in a list of two or more ("steps (1), (2) and (3)"; "in most cases (2)." is a marker), or
where the answer has labelled a step inline with that number, a clause has ended since and the
number is the object of the word before it, a verb such as repeat or a preposition such as to
or in ("(1) install it, (2) tune it; if that fails, repeat (2)."; "... Restart it afterwards
(1)." is a marker), unless that word says a source holds it ("... is described in (2)." and
"... is listed in (2)." are markers; "... described in step (2)." a step). A number joined to
the next by "and", "or", "to", "through" or a dash labels nothing of its own: it is one of a
list, read as the list's last number is, by the word before the list ("... if that fails,
repeat (1) and (2)." refers to two steps again, "... grey (1) and (2)." cites both passages
whatever steps were labelled). A numbered list's own numbers make nothing prose: "1. Build the
image (1)." cites passage 1. Where it is unclear, a number is read as a marker, as it is checked
then. And either counts only when every number in it names a passage supplied; any other is a
value.

A range may be written between two markers of one form too, a dash, "to" or "through" between
them: ``[1]-[3]``, ``(1)–(3)``, "(1) to (3)". Where both are read as markers and every passage
in the range was supplied, it stands for what ``[1-3]`` does; otherwise each end is read alone.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable, Iterator

_DASHES = r"[-\u2010-\u2015\u2212]"
# The words that join a range's two ends, "1-3", "1–3", "1 to 3", "1 through 3".
_RANGE_WORDS = r"\b(?:to|through)\b"
_RANGE_JOIN = rf"(?:{_DASHES}|{_RANGE_WORDS})"
# The words that join one number of a list to the next, "1, 2", "1 and 2", "1, or 2", "1 & 2".
_LIST_WORDS = r",|\band\b|\bor\b|&"
_LIST_JOIN = rf"(?:,\s*+(?:and|or)\b|{_LIST_WORDS})"
_MARKED = rf"\d{{1,6}}(?:\s*{_DASHES}\s*\d{{1,6}})?"
# What a bracketed marker holds, "2" or "1-3, 5": the checks' reading, and what a decline's
# reason leaves out (``bot.answer.nonanswer``).
LISTED = rf"{_MARKED}(?:\s*,\s*{_MARKED})*"
# In words: "passage 2", "passages 2 and 3", "passages 1, 2 or 4", "passages 1 to 3".
_WORD_ITEM = rf"#?\d{{1,6}}(?:\s*{_RANGE_JOIN}\s*#?\d{{1,6}})?"
_WORD_JOIN = rf"\s*{_LIST_JOIN}\s*"
_SUPER_DIGITS = "\u2070\u00b9\u00b2\u00b3\u2074\u2075\u2076\u2077\u2078\u2079"  # ⁰ to ⁹
_SUPERSCRIPTS = str.maketrans(f"{_SUPER_DIGITS}\u207b\u02d2", "0123456789-,")  # ⁻ and ˒ too
# Up to six digits, as in [n]: a longer run is no passage's number (nor one to convert).
_SUPER = f"[{_SUPER_DIGITS}]{{1,6}}(?![{_SUPER_DIGITS}])"
_MARKER = re.compile(
    # [2] or [1-3, 5], though not after a word (items[6] indexes); a footnote, seven[^2], may be.
    rf"(?:(?<!\w)\[|\[\^)(?P<bracket>{LISTED})\]"
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
    rf"|(?<![\w\]])(?P<parenthesised>\({LISTED}\)(?:[ \t]*\({LISTED}\))*)"
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
# A group with neither is blank where its code was taken out, "(`--force`)²": no expression.
_LETTER_OR_DIGIT = re.compile(r"[^\W_]")
# Units an exponent raises; case matters, as it does for the units themselves (a metre is
# ``m``, a megabyte ``MB``). One-letter ones (m, s) are one-letter names already.
_UNIT = re.compile(r"(?:[kcmdnpµμ]|da)m|[mnµμ]s|sec|in|ft|yd|mi|px|pt|r?em")
# "step (2)", "item (3)", "option no. (3)": a word that names one step, so the number after it
# (and any listed with it, "step (1), (2)") is a step's, not a passage's. Each noun's plural,
# "steps", "entries", is read below; an abbreviation (eq, fig, no) has none.
_STEP_NOUN = (
    r"step|item|point|option|stage|phase|part|case|line|rule|clause|condition|entry|row|column"
    r"|example|equation|figure|table|number|question|choice|alternative|method|task"
)
_STEP_WORD = rf"(?:{_STEP_NOUN}|eq|fig|no)"
_STEPS_WORD = f"(?:{'|'.join(re.sub('y$', 'ie', noun) + 's' for noun in _STEP_NOUN.split('|'))})"
_STEP_JOIN = rf"\s*+(?:{_LIST_JOIN}|{_RANGE_JOIN})\s*+"
_STEP_LISTED = rf"\([\d,\s\u2010-\u2015\u2212-]*\)(?:{_STEP_JOIN})?\s*+"
# A plural one ("cases", "options") names steps only when two or more numbers follow it, "steps
# (1), (2) and (3)": "This works in most cases (2)." points to passage 2. So after a plural
# word, a number is a step's when another came before it (``listed``) or another follows it.
_STEP_NAMED = re.compile(
    rf"\b(?:{_STEP_WORD}\.?\s*+(?:{_STEP_LISTED})*"
    rf"|{_STEPS_WORD}\s*+(?P<listed>(?:{_STEP_LISTED})*))$",
    re.I,
)
# A number joined to the next one, "(1) and (2)", "(1) or (2)", "(1) to (3)", "(1)–(3)": up to
# where the next one's "(" stands.
_JOINED = re.compile(rf"{_STEP_JOIN}(?=\(\s*+\d)")
# A singular word after a determiner, within the two words before it, names a thing of the
# answer's rather than a numbered step: "the `--force` option (2).", "the configuration
# example (2).", "in that case (1)." point to passages. (A code span is gone from the prose
# read here, so "the `--force` option" reads "the  option".)
_DETERMINED = re.compile(
    r"\b(?:the|a|an|this|that|these|those|each|every|its|their|our|your|my|which|what)"
    r"\s++(?:[^\W\d_][\w-]*+\s++){0,2}$",
    re.I,
)
# Words that say a source holds what the answer refers to: "is described in (2)", "is listed
# in (2)". A step the answer labels is an instruction the reader carries out, not a text that
# describes, gives or lists anything, so after any of them the number is a source's.
_HOLDS = (
    r"(?:described|shown|explained|documented|given|stated|noted|listed|defined|outlined"
    r"|detailed|mentioned)\s++(?:in|by)"
)
# Where a clause ends: a step referred to after one ("...; repeat (2).") is the answer's own.
_CLAUSE_BREAK = re.compile(r"[;!?\n]|\.(?!\S)")
# Words that point a reader to a source: a number right after one, or listed after one, is a
# citation even where more words follow it, "see (2) for details", "see (2), (3) for details",
# "as in (2) above", "per (2), the default is three", rather than a step the answer labels.
_POINTS_TO = re.compile(
    r"(?<![\w-])(?:see(?:\s++also)?|cf\.?|per|according\s++to|refer(?:ring)?\s++to|as\s++in"
    rf"|(?:as\s++)?{_HOLDS})\s*+(?:{_STEP_LISTED})*$",
    re.I,
)
# A step referred to again is the object of the word before it, or listed after that word:
# "repeat (2).", "go back to (1).", "see (2).", "repeat (1), (2).". After any other, "Restart it
# afterwards (1).", a number closing a clause is a citation, whatever steps the answer labelled.
# One space at most: more is where code was taken out, and "set it to `7` (1)." names a value
# there, not a step.
_TAKES_A_STEP = re.compile(
    r"(?<![\w-])(?:repeat|redo|retry|rerun|re-run|skip|do|follow|perform|complete|finish|undo"
    r"|revisit|try|use|run|choose|pick|prefer|apply|take|reuse|continue|resume|omit|see|cf\.?"
    r"|per|to|from|after|before|at|in|into|with|without|of|than|like|until|till|on|via|over"
    rf"|and|or|nor|then|both|either)\s?(?:{_STEP_LISTED})*$",
    re.I,
)
# Words that say a source holds something: a number after one, "is described in (2).", names
# a passage even where the answer labelled a step 2 before, while "repeat (2)." or "go back to
# (2)." take the step; "described in step (2)." is a step's all the same (``_names_step``).
_SAYS_A_SOURCE_HOLDS = re.compile(
    rf"(?<![\w-]){_HOLDS}\s*+(?:{_STEP_LISTED})*$",
    re.I,
)
_RANGE_WORD = re.compile(_RANGE_WORDS, re.I)
# What stands between two markers that give a range's ends, "(1)–(3)", "[1] to [3]": the checks'
# reading, and what a decline's reason takes out with the markers (``bot.answer.nonanswer``).
RANGE_BETWEEN = rf"[ \t]*+{_RANGE_JOIN}[ \t]*+"
_RANGE_BETWEEN = re.compile(RANGE_BETWEEN, re.I)
# What stands between two markers of one list, "[1], [3]", "[1] and [3]": what a decline's
# reason takes out with them, as it takes a range (``bot.answer.nonanswer``). A comma and a word
# together, "[1], and [3] says", may open a clause instead, and are left to be read so.
LIST_BETWEEN = rf"[ \t]*+(?:{_LIST_WORDS})[ \t]*+"
_FORMS = ("bracket", "worded", "superscript", "parenthesised")
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
    if group is not None:  # (n+1)², f(x)²; not (see the guide)², nor (`--force`)²
        held = group.group(1) or group.group(2) or ""
        return _TWO_LETTERS.search(held) is None and _LETTER_OR_DIGIT.search(held) is not None
    return False


def _before(m: re.Match[str]) -> str:
    """The words right before ``m``, as far back as is read (``_LOOK_BACK``)."""
    return m.string[max(0, m.start() - _LOOK_BACK) : m.start()]


def _names_step(m: re.Match[str]) -> bool:
    """Whether the parenthesised number ``m`` follows a word that makes it a step's."""
    before = _before(m)
    named = _STEP_NAMED.search(before)
    if named is None:
        return False
    if named["listed"] is None:  # a singular word: "step (2)", though not "the option (2)"
        return _DETERMINED.search(before[: named.start()]) is None
    return bool(named["listed"]) or _JOINED.match(m.string, m.end()) is not None


def _closes(m: re.Match[str]) -> bool:
    """Whether the parenthesised number ``m`` stands where a citation does, not as a label.

    It does where it closes a clause, "seven (2).", or where a word pointing to a source comes
    right before it, "see (2) for details".
    """
    return m["closes"] is not None or _POINTS_TO.search(_before(m)) is not None


def _placed(prose: str) -> Iterator[tuple[re.Match[str], bool, re.Match[str]]]:
    """Each marker in ``prose``, whether it stands as a citation does, and its list's first.

    Whether it stands as a citation does is ``_closes``; its list's first marker is the marker
    itself where it is in no list. A number in parentheses joined to the next by "and", "or",
    "to", "through" or a dash, "(1) and (2)", "(1)–(3)", labels no item of its own: it is one of
    a list, and stands where the list's last number stands. So "repeat (1) and (2)." refers to
    two steps again, "grey (1) and (2)." cites two passages and "(1) or (2) installs it" labels
    two. Each marker is read once, whatever the list's length.
    """
    joined: list[re.Match[str]] = []  # the list's numbers so far, each joined to the next
    expected = -1  # where the list's next number stands
    for m in _MARKER.finditer(prose):
        parenthesised = m["parenthesised"] is not None
        if joined and (m.start() != expected or not parenthesised):
            yield from ((n, False, joined[0]) for n in joined)  # the list stopped short: labels
            joined = []
        if not parenthesised:
            yield m, True, m
            continue
        closes = _closes(m)
        join = None if closes else _JOINED.match(prose, m.end())
        if join is not None:
            joined.append(m)
            expected = join.end()
            continue
        first = joined[0] if joined else m
        yield from ((n, closes, first) for n in joined)
        joined = []
        yield m, closes, first
    yield from ((n, False, joined[0]) for n in joined)


def _marker_numbers(m: re.Match[str], supplied: int | None) -> list[int]:
    """The passage numbers one marker stands for, or none where it is prose (module docstring).

    ``[n]``, ``[^n]`` and "passage n" are markers whatever they say. A superscript or a number
    in parentheses is read only when every number in it is a passage supplied (``supplied``
    passages; any, when ``None``), so an answer is not declined for writing a value that way.
    A number in parentheses comes here only where it stands as a citation does (``_closes``):
    ``passage_numbers`` reads any other as a label of the answer's own.
    """
    if m["parenthesised"] is not None:
        if _names_step(m):  # a step's (1)
            return []
        numbers = _listed(m["parenthesised"].translate(_PARENTHESES))
        return numbers if _supplied(numbers, supplied) else []
    if m["superscript"] is not None:
        if _raises(_before(m)):
            return []
        numbers = _listed(m["superscript"].translate(_SUPERSCRIPTS))
        return numbers if _supplied(numbers, supplied) else []
    if m["worded"] is not None:
        return _listed(_JOIN_WORD.sub(",", _RANGE_WORD.sub("-", m["worded"].replace("#", ""))))
    return _listed(m["bracket"])


def _spanned(
    prose: str,
    start: tuple[re.Match[str], list[int]],
    end: tuple[re.Match[str], list[int]],
    supplied: int | None,
) -> list[int] | None:
    """Every passage number from ``start``'s to ``end``'s, where a range joins the two markers.

    "(1)–(3)", "[1] to [3]" and "passage 1 to passage 3" stand for what "(1-3)", "[1-3]" and
    "passages 1 to 3" do: two markers of one form, a number each, with a dash, "to" or "through"
    between them and nothing else. Read as the one-marker form is, the range counts only where
    every number in it names a passage supplied; ``None`` where there is no such range.
    """
    (first, first_numbers), (last, last_numbers) = start, end
    if len(first_numbers) != 1 or len(last_numbers) != 1 or _form(first) != _form(last):
        return None
    if _RANGE_BETWEEN.fullmatch(prose, first.end(), last.start()) is None:
        return None
    numbers = _listed(f"{first_numbers[0]}-{last_numbers[0]}")
    return numbers if _supplied(numbers, supplied) else None


def _form(m: re.Match[str]) -> str | None:
    return next((form for form in _FORMS if m[form] is not None), None)


def _supplied(numbers: Iterable[int], supplied: int | None) -> bool:
    return supplied is None or all(1 <= n <= supplied for n in numbers)


def passage_numbers(prose: str, supplied: int | None) -> list[int]:
    """The passage numbers ``prose`` (an answer with its code taken out) points to, in order.

    ``supplied``: how many passages the answer was drafted from.
    """
    # Where the answer labels its own steps inline, "(1) install it, (2) tune it", a closing
    # "(2)." is one of them when a step 2 was labelled before it, a clause has ended since the
    # last label and a word that takes a step comes right before it: "(2) tune it; if that
    # fails, repeat (2).". After any other word, "(2) tune it. Restart it afterwards (1).",
    # within an item, "(2) tune it (1).", and wherever the answer numbers its steps as a list
    # ("1. Build the image (1)."), it is a passage: the rule errs towards citations.
    breaks = [b.start() for b in _CLAUSE_BREAK.finditer(prose)]
    labelled: set[int] = set()  # the numbers steps were labelled with so far
    label_end = 0  # where the last label ends
    cited: list[tuple[re.Match[str], list[int]]] = []  # each marker read, with its numbers
    for m, closes, first in _placed(prose):
        parenthesised = m["parenthesised"] is not None
        if parenthesised and not closes:  # a label, "(1) install it"
            labelled.update(_listed(m["parenthesised"].translate(_PARENTHESES)))
            label_end = m.end()
            continue
        numbers = _marker_numbers(m, supplied)
        # A list's numbers take a step or cite a passage together, by the word before the list:
        # "grey (1) and (2)." cites both, though "and" comes right before its (2).
        before = _before(first)
        if (
            parenthesised
            and not labelled.isdisjoint(numbers)
            and _TAKES_A_STEP.search(before)
            and not _SAYS_A_SOURCE_HOLDS.search(before)
        ):
            next_break = bisect_left(breaks, label_end)
            if next_break < len(breaks) and breaks[next_break] < m.start():
                continue  # a step of the answer's own, referred to again
        spanned = _spanned(prose, cited[-1], (m, numbers), supplied) if cited else None
        if spanned is not None:  # "(1)–(3)": the two ends stand for the range together
            cited[-1] = (m, spanned)
        else:
            cited.append((m, numbers))
    return list(dict.fromkeys(n for _, numbers in cited for n in numbers))

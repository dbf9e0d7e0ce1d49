r"""Fencing untrusted text so it cannot forge the passage delimiters (pure).

Every passage reaches the model between a ``-----BEGIN PASSAGE n-----`` line and a
``-----END PASSAGE n-----`` line, and the instructions say that nothing between them is an
instruction. That only holds if passage text (and the question) cannot contain a line the
model would take for one of those delimiters. So untrusted text is neutralised first:

* every kind of line break becomes ``\n``, so what is inspected line by line is exactly
  what the model sees line by line;
* each line is *folded*: compatibility forms (full-width, mathematical letters) become plain
  letters, accents and other combining marks and invisible characters are dropped, every
  character Unicode's confusables data (UTS #39) lists as looking like an ASCII letter becomes
  that letter (Cyrillic, Greek, Cherokee, Lisu, ...), as do small capitals and a few other
  stand-ins it leaves out, and every kind of dash becomes ``-``;
* a folded line in which the word BEGIN or END stands next to the word PASSAGE (or
  PASSAGES), in any case, with any spacing or punctuation between and even inside the words,
  is rewritten so that a marker separates them: ``END (quoted) PASSAGE``. The words stay
  readable; the line no longer reads as a delimiter. "Next to" means nothing but spacing and
  punctuation in between, and neither word glued to other letters, so ordinary words that
  merely contain the letters (``append``, ``passages``) are left alone.
"""

from __future__ import annotations

import json
import re
import unicodedata
from functools import lru_cache
from importlib.resources import files

# Characters Python (and so very likely the model's tokenizer) treats as line breaks.
_LINE_BREAKS = re.compile(r"\r\n|[\r\n\v\f\x1c\x1d\x1e\x85\u2028\u2029]")

# Look-alike letters the confusables data does not list as such (small capitals, Greek nu,
# which it likens to v), mapped to the letter they imitate in BEGIN, END and PASSAGE.
_LOOK_ALIKES = str.maketrans(
    {
        "ν": "n", "ᴀ": "a", "ʙ": "b", "ᴅ": "d", "ᴇ": "e", "ɢ": "g", "ɴ": "n", "ᴘ": "p",
        "ß": "ss", "ẞ": "SS",
    }
)  # fmt: skip

_GAP = r"[^0-9a-z]*"  # anything but ASCII letters and digits (the pattern ignores case)
_BETWEEN = r"[^a-z]*"  # between the two words a number may stand too: BEGIN 1 PASSAGE


def _spaced(word: str) -> str:
    return _GAP.join(word)


# The two words side by side, not glued to other letters; letters may be spaced out.
_DELIMITER_WORDS = re.compile(
    rf"(?<![a-z])({_spaced('begin')}|{_spaced('end')}){_BETWEEN}({_spaced('passage')}(?:{_GAP}s)?)"
    r"(?![a-z])",
    re.IGNORECASE,
)
_DASH_RUN = re.compile(r"-{2,}")
REMOVED_LINE = "[a line imitating a passage fence was removed here]"
_DASHES = frozenset("\u2212\u2500\u2501\u2796\u2043\u02d7")  # dash-like but not category Pd


def normalise_breaks(text: str) -> str:
    r"""Turn every kind of line break into ``\n``."""
    return _LINE_BREAKS.sub("\n", text)


@lru_cache(maxsize=1)
def _confusable_letters() -> dict[str, str]:
    """Each non-ASCII character that Unicode's confusables data says looks like one ASCII letter.

    The data is the package's own copy of the Unicode table, read as shipped: the package's
    API answers about whole strings, and this needs the table character by character.
    """
    data = json.loads((files("confusable_homoglyphs") / "confusables.json").read_text("utf-8"))
    letters = {}
    for char, glyphs in data.items():
        if len(char) != 1 or char.isascii():
            continue
        looks = [g["c"] for g in glyphs if len(g["c"]) == 1 and g["c"].isascii()]
        if looks and looks[0].isalpha():
            # The data likens every vertical stroke (Cyrillic І, Greek Ι) to l; in the
            # delimiter's words such a stroke can only stand for the I of BEGIN.
            letters[char] = "i" if looks[0] == "l" else looks[0]
    return letters


def _fold_char(ch: str) -> str:
    """What one character of NFKD-normalised text folds to (the empty string: dropped)."""
    if (look_alike := _LOOK_ALIKES.get(ord(ch))) is not None:
        return str(look_alike)
    letters = _confusable_letters()
    # The data lists some letters in one case only (Komi Ԍ, not ԍ); delimiters ignore case.
    for form in (ch, ch.upper(), ch.lower()):
        if form in letters:
            return letters[form]
    category = unicodedata.category(ch)
    if category in ("Cf", "Mn", "Me"):
        return ""  # zero-width characters and combining marks are invisible padding
    return "-" if category == "Pd" or ch in _DASHES else ch


class _FoldTable(dict[int, str]):
    """``_fold_char`` as a ``str.translate`` table, each character worked out once.

    Folding runs over every passage of every answer, and passages in most languages (or
    just typographic dashes and quotes) are not ASCII; a per-character Python loop made it
    the costliest part of building a prompt. The table learns characters as it meets them;
    past ``_FOLD_TABLE_SIZE`` distinct ones it stops remembering (an unusual corpus, or
    hostile input) and simply works them out again.
    """

    def __missing__(self, code: int) -> str:
        folded = _fold_char(chr(code))
        if len(self) < _FOLD_TABLE_SIZE:
            self[code] = folded
        return folded


_FOLD_TABLE_SIZE = 1 << 16
_FOLD_TABLE = _FoldTable()


def fold(line: str) -> str:
    """Plain letters, no accents or invisibles, look-alikes as ASCII, dashes as ``-``."""
    if line.isascii():
        return line  # nothing to fold, and most lines are plain ASCII
    return unicodedata.normalize("NFC", unicodedata.normalize("NFKD", line).translate(_FOLD_TABLE))


def looks_like_delimiter(line: str) -> bool:
    """Whether a line could be read as a passage delimiter, however it is disguised."""
    return _DELIMITER_WORDS.search(fold(line)) is not None


def neutralise_line(line: str) -> str:
    """Rewrite one delimiter-like line so that it no longer reads as a delimiter."""
    if not looks_like_delimiter(line):
        return line
    rewritten = fold(line)
    for _ in range(3):
        rewritten = _DELIMITER_WORDS.sub(
            lambda m: f"{m.group(1).upper()} (quoted) {m.group(2).upper()}", rewritten
        )
        if not _DELIMITER_WORDS.search(rewritten):
            return _DASH_RUN.sub("-", rewritten)
    # Not reached by any input found so far; kept so that no input can defeat the rewrite.
    return REMOVED_LINE


def neutralise(text: str) -> str:
    """Untrusted text with normalised line breaks and no line that reads as a delimiter."""
    text = normalise_breaks(text)
    # One search over the whole text finds every match a line-by-line search would (and maybe
    # more, across lines), so when it finds none, no line needs rewriting: the usual case.
    if _DELIMITER_WORDS.search(fold(text)) is None:
        return text
    return "\n".join(neutralise_line(line) for line in text.split("\n"))

"""Identifiers as words: ``defaultTakeCount`` is findable as "default take count".

The search tokenizer keeps ``defaultTakeCount`` as one token, and a question almost never
contains the identifier, only its words. Splitting happens on case changes, underscores,
and letter/digit boundaries; acronyms stay whole (``HTTPServer`` -> ``http server``).

Identifiers also abbreviate what prose spells out: ``MaxRecvMsgSize`` is about the maximum
size of a *received message*. The search words of an abbreviated part are followed by the
word it stands for, so a question in plain words finds the identifier. Only abbreviations
with one reading in code are expanded; the query is never expanded, because a question's
"dir" or "env" would then match every passage about directories or environments.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

# Only identifiers with a case change or an inner underscore can split into several words;
# finding those first keeps ordinary prose words out of the (much slower) splitting.
_COMPOUND = re.compile(
    r"\b[A-Za-z_]*(?:[a-z0-9][A-Z]|[A-Z]{2}[a-z]|[A-Za-z0-9]_[A-Za-z0-9])[A-Za-z0-9_]*"
)
_PART = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|[0-9]+")

# Abbreviation and the word it stands for, one pair per line.
_ABBREVIATIONS_TEXT = """
addr address
arg argument
args arguments
attr attribute
attrs attributes
buf buffer
cfg config
cmd command
cmds commands
conf config
conn connection
conns connections
ctx context
db database
del delete
dest destination
dir directory
dirs directories
doc document
dst destination
env environment
err error
errs errors
expr expression
exprs expressions
fmt format
fn function
func function
hdr header
idx index
impl implementation
len length
lib library
msg message
msgs messages
num number
obj object
opt option
opts options
param parameter
params parameters
pkg package
prog program
progs programs
recv receive
ref reference
req request
resp response
spec specification
src source
str string
tmp temporary
val value
vals values
var variable
vars variables
ver version
"""
ABBREVIATIONS = dict(line.split() for line in _ABBREVIATIONS_TEXT.strip().splitlines())


def split_identifier(name: str) -> list[str]:
    """Return the lowercase words of one identifier (``HTTPServer`` -> ``['http', 'server']``)."""
    return [p.lower() for p in _PART.findall(name)]


def compound_words(text: str) -> Iterable[tuple[str, list[str]]]:
    """Yield ``(identifier, words)`` for every identifier in ``text`` made of several words."""
    for match in _COMPOUND.finditer(text):
        name = match.group(0)
        words = split_identifier(name)
        if len(words) > 1:
            yield name, words


def search_terms(*texts: str) -> str:
    """Return the split words of every compound identifier in ``texts``, once each, in order.

    An abbreviated word is followed by the word it stands for (``recv receive``). Each word
    is kept once per chunk: the column says *which* words the identifiers hold, and
    repeating them would let one long identifier list outweigh the prose.
    """
    seen: set[str] = set()
    out: list[str] = []
    for text in texts:
        for _, words in compound_words(text):
            for word in words:
                for term in (word, ABBREVIATIONS.get(word)):
                    if term and term not in seen:
                        seen.add(term)
                        out.append(term)
    return " ".join(out)

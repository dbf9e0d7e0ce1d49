"""Telling a drafted answer that only says the passages do not answer from a real one (pure).

A model sometimes writes its decline as an answer: "The passages do not say how to colour a
widget [1].", with ``declined`` false and a citation. Shown, it reads as an answer and the
question drops out of the documentation gaps. So a draft is a decline in an answer's clothes
when every sentence in it says that the material does not say, cover, mention or specify
something, and nothing else: a sentence that goes on to a statement of its own ("..., but",
"..., so", "..., only", "instead") is a real statement, and a draft with one of those, or with
a code block, is an answer, judged as any other. The rule errs towards showing: a real answer
that says in passing that the passages leave something out is never turned into a decline.
"""

from __future__ import annotations

import re

# What the model was given, named as it names it: "the passages", "passage [2]", "the docs".
_NOUN = r"(?:passages?|documentation|docs|sources?|material|context|excerpts?|documents?)"
_MATERIAL = (
    r"(?:(?:the|these|those|this|provided|supplied|given|retrieved|available|cited|quoted"
    rf"|indexed|any|of|none|neither|no)\s+)*{_NOUN}"
    r"(?:\s+\[?\^?\d{1,6}\]?)?(?:\s+(?:provided|supplied|given|retrieved|above|here))?"
)
_PRONOUN = r"(?:they|it|this|these|that|neither|none)"
_TELL = (
    r"(?:say|state|cover|mention|specify|describe|explain|document|include|contain|address"
    r"|answer|show|give|list|provide|discuss|detail|tell|indicate|define|name|clarify)"
)
_NOT = r"(?:do|does|did|can|could)\s*(?:not|n[’']t)\s+(?:\w+ly\s+)?"
_SAYS_NOTHING = rf"{_TELL}s?\s+nothing|contains?\s+no|makes?\s+no\s+mention|(?:is|are)\s+silent"
# Words a sentence may open with that add nothing: "However, the passages do not say...".
_OPENING = re.compile(r"(?:(?:however|unfortunately|sadly|sorry|but|also|and)\b[,:]?\s+)*", re.I)
# A sentence whose subject is the material (or, after the first, a pronoun for it) and whose
# verb says that it does not tell; or one that says a thing is not in it, or not found in it.
_LACK = re.compile(
    rf"(?:(?P<subject>{_MATERIAL}|{_PRONOUN})\s+(?:{_NOT}{_TELL}|{_SAYS_NOTHING})\b"
    rf"|(?:none|neither|no)\s+(?:of\s+)?{_MATERIAL}\s+(?:\w+ly\s+)?{_TELL}s?\b"
    rf"|(?:(?:how|what|whether|which|when|where|why|who)\b[^,;]*?|this|that|it)\s+"
    rf"(?:is|are)\s+not\s+(?:\w+ly\s+)?(?:covered|mentioned|documented|specified"
    rf"|described|addressed|explained|discussed|given|stated)\s+(?:in|by)\s+{_MATERIAL}\b"
    # the noun alone after ".*": the words before it would be tried again at every position
    rf"|(?:there\s+is|there's)\s+no\s+(?:information|mention|detail|description|answer)\b.*"
    rf"\b{_NOUN}\b"
    rf"|i\s+(?:can(?:not|[’']t)|could\s*(?:not|n[’']t))\s+find\b.*\b{_NOUN}\b)",
    re.I,
)
# What turns a sentence from a statement of absence into one of its own.
_GOES_ON = re.compile(
    r"\b(?:but|however|although|though|instead|except|whereas|only|rather|yet|while)\b"
    r"|,\s*(?:so|and)\b",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")
_BRACKET_MARKER = re.compile(r"\s*\[\^?\d{1,6}(?:\s*[-,\u2013]\s*\d{1,6})*\]")
_LIST_BULLET = re.compile(r"^\s*(?:[-*+]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^\s*(?:```|~~~)|^(?: {4}|\t)\S", re.M)


def _sentences(text: str) -> list[str]:
    pieces = (_LIST_BULLET.sub("", s).strip() for s in _SENTENCE_END.split(text))
    return [s for s in pieces if s]


def is_non_answer(markdown: str) -> bool:
    """Whether ``markdown`` only says that the material does not answer (module docstring)."""
    if _FENCE.search(markdown):
        return False
    sentences = _sentences(without_markers(markdown))
    for i, sentence in enumerate(sentences):
        said = _OPENING.sub("", sentence, count=1)  # always matches at the start, if empty
        lack = _LACK.match(said)
        if lack is None or _GOES_ON.search(said):
            return False
        subject = lack["subject"]
        if i == 0 and subject is not None and re.fullmatch(_PRONOUN, subject, re.I):
            return False  # "It does not say..." names nothing the passages hold
    return bool(sentences)


def without_markers(markdown: str) -> str:
    """The text with its bracketed passage markers taken out: a reason is shown without them."""
    return _BRACKET_MARKER.sub("", markdown).strip()

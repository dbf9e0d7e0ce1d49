"""Telling a drafted answer that only says the passages do not answer from a real one (pure).

A model sometimes writes its decline as an answer: "The passages do not say how to colour a
widget [1].", with ``declined`` false and a citation. Shown, it reads as an answer and the
question drops out of the documentation gaps. So a draft is a decline in an answer's clothes
when every sentence in it says that the material does not say, cover, mention or specify
something, and nothing follows but that something. The material is named as given, with a
determiner, a qualifier or a number ("the passages", "these docs", "the provided documentation",
"passage [2]"): a bare noun ("Sources do not include archived projects") may be the product's
own word. A sentence with a second clause (after a colon, a semicolon or a dash, opened by
"but", "because", "instead" and the like, or after a comma that a subject, a code span or a word
such as "so" or "only" follows; a list, "red, green or blue", with or without a comma before its
"or", is no second clause, unless a verb such as "is", "can" or "has" follows that "or",
``_goes_on``) is a statement of its own, and a draft with one of those, or with a code block, is
an answer; though not where that clause only says what the passages do cover, "...; they only
cover installation [1].", with no name in code and no figure (``_only_describes``), as an aside
saying that is not, nor where ", or" or ", and" only asks the question again, "whether it can,
or how". So is a draft with an aside in parentheses that cites a passage for a name of its
own, "(the example sets `--force` [2])": a citation alone makes no answer (the markers are read
past), but that aside says what a passage holds, and shown as an answer its name is checked
against that passage, where as a decline's reason it would be shown unchecked. An aside that
names nothing in code, "(they only discuss installation [2])", is what the draft says of the
passages, and so is one that only points, "(see `--force` in [2])", or says again what is
missing, with a negation or with no word but pointing ones and those the draft says outside it,
"(passage [2] only mentions `depth`)"; and a "but" or ";" in one that cites a passage opens no
second clause where what follows it says what is missing too, "(passage [1] mentions `depth`
but not its default)". The rule errs towards showing: a real answer that says in passing that
the passages leave something out is not turned into a decline, unless what it goes on to say
reads as a list's last item, "Windows, macOS, and the tool runs only on Linux [2]." A dash
between a range's two markers, "[1]—[3]" or "(1) – (3).", opens no clause: the checks read it
as the range of passages it gives.

Every pattern here reads a sentence in time linear in its length, so no reply, however long or
odd, holds up the event loop the check runs on.
"""

from __future__ import annotations

import re

from bot.answer.markers import LIST_BETWEEN, LISTED, RANGE_BETWEEN, passage_numbers

# What the model was given, named as it names it: "the passages", "passage [2]", "the docs". A
# bare noun is not enough: "Sources do not include archived projects" speaks of the product's
# own sources, so the noun needs a determiner, a word saying it was given, or a number.
_NOUN = r"(?:passages?|documentation|docs|sources?|material|context|excerpts?|documents?)\b"
_DETERMINER = r"(?:the|these|those|this|that|any|each|every|both)"
_GIVEN = r"(?:provided|supplied|given|retrieved|cited|quoted)"
_MODIFIER = rf"(?:{_GIVEN}|available|indexed|relevant|above)"
_NUMBERED = r"\[?\^?\d{1,6}\]?"
_AFTER_NOUN = rf"(?:{_NUMBERED}|(?:{_GIVEN}|above|here)\b)"
# Every run of spaces is possessive (``\s++``) and every repetition is bounded or followed by
# a word, so no run of spaces or words is read again from each of its positions: linear time.
_MATERIAL = (
    rf"(?:(?:{_DETERMINER}|{_GIVEN})\s++(?:{_MODIFIER}\s++){{0,3}}{_NOUN}"
    rf"|{_NOUN}(?=\s++{_AFTER_NOUN}))"
    rf"(?:\s++{_NUMBERED})?(?:\s++(?:{_GIVEN}|above|here)\b)?"
)
_PRONOUN = r"(?:they|it|this|these|that|neither|none)"
# The words a question opens with; "if" too, where it asks (``_QUESTION_WORD``).
_ASKS = r"how|what|whether|which|when|where|why|who"
_TELL = (
    r"(?:say|state|cover|mention|specify|describe|explain|document|include|contain|address"
    r"|answer|show|give|list|provide|discuss|detail|tell|indicate|define|name|clarify)"
)
_NOT = r"(?:do|does|did|can|could)\s*+(?:not|n[’']t)\s++(?:\w+ly\s++)?"
_SAYS_NOTHING = (
    rf"{_TELL}s?\s++nothing|contains?\s++no|makes?\s++no\s++mention|(?:is|are)\s++silent"
)
# Words a sentence may open with that add nothing: "However, the passages do not say...".
_OPENING = re.compile(r"(?:(?:however|unfortunately|sadly|sorry|but|also|and)\b[,:]?\s++)*", re.I)
# A sentence whose subject is the material (or, after the first, a pronoun for it) and whose
# verb says that it does not tell; or one that says a thing is not in it, or not found in it.
# A question word's clause ends at a word, not inside a run of spaces (``(?<=\S)``), so the
# spaces after it are read once, not once for each word or space before them.
_LACK = re.compile(
    rf"(?:(?P<subject>{_MATERIAL}|{_PRONOUN})\s++(?:{_NOT}{_TELL}|{_SAYS_NOTHING})\b"
    rf"|(?:(?:none|neither)\s++of\s++{_MATERIAL}|(?:neither|no)\s++(?:{_MODIFIER}\s++){{0,3}}{_NOUN})"
    rf"\s++(?:\w+ly\s++)?{_TELL}s?\b"
    rf"|(?:(?:{_ASKS})\b[^,;]*?(?<=\S)|this|that|it)\s++"
    rf"(?:is|are)\s++not\s++(?:\w+ly\s++)?(?:covered|mentioned|documented|specified"
    rf"|described|addressed|explained|discussed|given|stated)\s++(?:in|by)\s++"
    rf"(?:(?:any|either|each)\s++of\s++)?{_MATERIAL}"
    # the material after ".*" is tried at each position back from the end: it reads a bounded
    # number of words from there, so the whole stays linear
    rf"|(?:there\s++is|there[’']s)\s++no\s++(?:information|mention|detail|description|answer)"
    rf"\b.*\b{_MATERIAL}"
    rf"|i\s++(?:can(?:not|[’']t)|could\s*+(?:not|n[’']t))\s++find\b.*\b{_MATERIAL})",
    re.I,
)
# What turns a sentence from a statement of absence into one of its own: anything after the
# "does not say X" clause but its object. A second clause follows a colon, a semicolon or a
# dash, or opens with a word that only joins clauses ("because", "but", "instead"). A comma
# starts one only where such a word, a weaker one ("so", "as", "only", "then"), a subject or a
# code span follows it: "Windows, macOS or BSD" and "running it as a service" are objects,
# ", so `retries` is 3" and ", the client retries" after ", it" are not. A question word
# opening the object ("which colours exist") is the object. Punctuation within a word, an
# address or a number (https://..., 1,000, 1–3) is none of these.
_JOINS = (
    r"but|however|although|though|instead|except|whereas|because|therefore|thus|hence|unless"
    r"|otherwise|meaning"
)
_JOINS_AFTER_A_COMMA = r"so|as|since|only|then|yet|while|rather|which|where"
_SUBJECT = r"it|they|you|we|there|this|that|these|those|he|she|i|one"
# ", and" or ", or" alone (``joined``) is a second clause, ", and widgets are grey", unless it
# closes a list: "Windows, macOS, and BSD" (``_goes_on``).
_GOES_ON = re.compile(
    r"[:;](?!\S)|\u2014|\s[-\u2013]{1,2}\s"
    rf"|,\s*+(?:(?:and|or)\s++)?(?:(?:{_JOINS}|{_JOINS_AFTER_A_COMMA}|{_SUBJECT})\b|`)"
    r"|,\s*+(?P<joined>and|or)\b"
    rf"|\b(?:{_JOINS})\b",
    re.I,
)
# A second clause that only says what the passages cover: its subject is the material, or
# "they", and its verb one that names a topic ("cover", "discuss", "deal with"), never one that
# may open a statement of its own ("say", "state", "show"). What it covers may not open with
# "that" ("they mention that it retries"), nor hold a verb ``_VERB`` reads or a figure ("they
# mention 30 seconds"): each is a statement, or a value from a passage. Spaces are possessive
# and what is covered is read once, to the end: linear.
_TOPIC = (
    r"(?:(?:cover|mention|concern|document)(?:s|ed)?|discuss(?:es|ed)?|address(?:es|ed)?"
    r"|describe[sd]?|focus(?:es|ed)?\s++on|deals?\s++with|dealt\s++with|touch(?:es|ed)?\s++on"
    r"|talk(?:s|ed)?\s++about)"
)
_DESCRIBES = re.compile(
    r"\s*+(?:(?:but|instead|rather|though|although)\b,?\s*+)?"
    rf"(?:{_MATERIAL}|they|these|those)\s++"
    r"(?:(?:only|just|merely|mainly|mostly|solely|instead|also|rather|briefly)\s++)?"
    rf"{_TOPIC}\b(?!\s*+that\b)(?P<covered>[^`]*+)",
    re.I,
)
_FIGURE = re.compile(r"\d")
# A passage's number in parentheses, "(2)", is no figure the passages give.
_PARENTHESISED_NUMBER = re.compile(rf"\({LISTED}\)")
# What a list is read by: a comma between two of its items, or the "and" or "or" that closes it.
_LISTING = re.compile(r"(?P<comma>,)\s|\b(?:and|or)\b", re.I)
# A verb such as "is", "can" or "has" after a list's closing ", and" makes what follows it a
# clause, "red, green, and widgets are grey", unless a question word makes the list, or the item
# it opens, that verb's subject: "whether Windows, macOS, and BSD are supported", "timeouts,
# retries, and whether it can". Any other verb is not read: "Windows, macOS, and the tool runs
# only on Linux" is a list.
_VERB = re.compile(
    r"\b(?:is|are|was|were|has|have|had|can|could|must|should|will|would|may|might|does|do|did)\b",
    re.I,
)
_QUESTION_WORD = rf"\b(?:{_ASKS}|if)\b"
_QUESTION = re.compile(_QUESTION_WORD, re.I)
_QUESTION_NEXT = re.compile(rf"\s*+{_QUESTION_WORD}", re.I)
# No split at a semicolon: what follows one is a second clause (``_GOES_ON``) all the same; nor
# after "cf.", "e.g." or "i.e.", which end no sentence: "(cf. passage [2] above)" is one aside.
_SENTENCE_END = re.compile(r"(?<=[.!?])(?<!\bcf\.)(?<!\be\.g\.)(?<!\bi\.e\.)\s+|\n+", re.I)
# A marker's spaces are taken from the first of them only (``(?<!\s)``), and a fence's from
# its line's start only: read from each space of a long run, either would read the run again.
# What it holds is read as the checks read it, so every range they read, with any dash, goes;
# so does a range between two markers, "[1]-[3]", "[1] to [3]", or a list of them, "[1] and
# [3]", "[1], [3]", whole: its dash or "and" is no clause.
_BRACKETED = rf"\[\^?{LISTED}\]"
_BRACKET_MARKER = re.compile(
    rf"(?<!\s)\s*+{_BRACKETED}(?:(?:{RANGE_BETWEEN}|{LIST_BETWEEN}){_BRACKETED})*", re.I
)
# A marker's brackets, taken off where it numbers its noun: "[1]-[3]" reads "1-3".
_BRACKETS = re.compile(r"[\[\]^]")
# What joins two numbers in parentheses into a range where the second closes a clause, "(1) –
# (3).", "(1) – (3);", as the checks read it: a marker, its dash no second clause. It is read
# from a ")" only, so a run of spaces is read once.
_PARENTHESISED_RANGE = re.compile(
    rf"(?<=\d\)){RANGE_BETWEEN}(?=\(\d{{1,6}}\)[ \t]*+(?:[.,;:!?)\]\[]|$))", re.I | re.M
)
# A marker right after the noun is the passage's own number, "passage [1] does not say".
_NAMES_PASSAGE = re.compile(r"(?:passages?|sources?|documents?|excerpts?)$", re.I)
_FIRST_NUMBER = re.compile(r"\d+")
_LIST_BULLET = re.compile(r"^\s*+(?:[-*+]|\d{1,9}[.)])\s+")
_FENCE = re.compile(r"^[ \t]*+(?:```|~~~)|^(?: {4}|\t)\S", re.M)
# An aside in parentheses, read from its "(" to the first bracket after it: each character is
# read from one "(" at most.
_ASIDE = re.compile(r"\(([^()\n]*+)\)")
# A code span in an aside: what the checks would read as a name.
_CODE_SPAN = re.compile(r"`[^`]++`")
_WORD = re.compile(r"[^\W\d_]+")
# Words an aside may hold beside a marker and still only point to it: "(see [2])", "(cf.
# passage [2] above)", "(e.g. [2])", "(as noted in [2])", "(only mentioned in passing in [2])".
_POINTING_WORD = re.compile(
    r"see|also|cf|compare|e|g|eg|i|ie|for|example|instance|as|in|per|at|under|above|below|the"
    r"|and|or|passages?|sources?|documents?|documentation|docs|excerpts?|by|of|on|it|is|this"
    r"|that|there|here|only|briefly|passing|closest|nearest|noted|mentioned|shown|described"
    r"|covered|cited|discussed|explained|documented|defined|detailed|outlined|listed|stated"
    r"|given|referenced|touched|mentions?|covers?|discuss(?:es)?|describes?|touch(?:es)?|guide"
    r"|section|page|manual|chapter|reference|readme|faq|tutorial",
    re.I,
)
# An aside that opens with a word sending the reader on only points, whatever it names after
# it: "(see the tuning guide [2])".
_POINTER = re.compile(r"\s*+(?:see|cf|compare|refer)\b", re.I)
# A word that says a thing is missing: an aside with one says again what the passages leave
# out, "(passage [1] mentions `depth`, not its default)", not what a passage holds.
# A flag's word is none: "(the example sets `--no-color` [2])" says what passage 2 holds.
_NEGATION = re.compile(
    r"(?<![\w-])(?:not|no|nothing|none|neither|nor|never|without|cannot)(?![\w-])|n[’']t\b", re.I
)


def _sentences(text: str) -> list[str]:
    pieces = (_LIST_BULLET.sub("", s).strip() for s in _SENTENCE_END.split(text))
    return [s for s in pieces if s]


def is_non_answer(markdown: str) -> bool:
    """Whether ``markdown`` only says that the material does not answer (module docstring)."""
    if _FENCE.search(markdown):
        return False
    outside = {word.casefold() for word in _WORD.findall(_ASIDE.sub(" ", markdown))}
    if any(_cites_a_statement(aside, outside) for aside in _ASIDE.finditer(markdown)):
        return False
    prose = _ASIDE.sub(_unless_restating, markdown)
    sentences = _sentences(
        _PARENTHESISED_RANGE.sub(" ", _BRACKET_MARKER.sub(_unless_numbering, prose))
    )
    for i, sentence in enumerate(sentences):
        said = _OPENING.sub("", sentence, count=1)  # always matches at the start, if empty
        lack = _LACK.match(said)
        if lack is None:
            return False
        clause = _goes_on(said)
        if clause is not None and not _only_describes(said[clause:]):
            return False
        subject = lack["subject"]
        if i == 0 and subject is not None and re.fullmatch(_PRONOUN, subject, re.I):
            return False  # "It does not say..." names nothing the passages hold
    return bool(sentences)


def _cites_a_statement(aside: re.Match[str], outside: set[str]) -> bool:
    """Whether ``aside`` cites a passage for a name of its own, not only points to it.

    "(the example sets `--force` [2])" says what passage 2 holds, and so does "(passage 2 sets
    `--force`)": a passage is cited in any form ``bot.answer.markers`` reads. One without code,
    "(they only discuss installation [2])", names nothing a check would read: it describes the
    passages, as a decline does. "(see [2])" says nothing; nor does one that opens with a word
    sending the reader on, "(see `--force` in [2])", one that says again what is missing, with a
    negation, "(`depth` is not given [2])", or one with no word but pointing ones and those the
    draft says ``outside`` its asides, "The passages do not give a default depth (passage [2]
    only mentions `depth`)."
    """
    held = aside.group(1)
    if _CODE_SPAN.search(held) is None or not passage_numbers(held, None):
        return False
    if _NEGATION.search(held) or _POINTER.match(held):
        return False
    words = _WORD.findall(_BRACKET_MARKER.sub(" ", held))
    return any(
        _POINTING_WORD.fullmatch(word) is None and word.casefold() not in outside for word in words
    )


def _unless_restating(aside: re.Match[str]) -> str:
    """Nothing for an aside that cites a passage to say again what is missing; any other as is.

    "(passage [1] mentions `depth` but not its default)" is the draft's word on the passages,
    as ``_cites_a_statement`` reads it: its "but" or ";" is no second clause of the sentence's.
    One whose second clause says something with no negation, "(not in [1]; it is `3`)", or
    goes on to a third, is left as it is, and its clause read as the sentence's.
    """
    held = aside.group(1)
    if not _NEGATION.search(held) or not passage_numbers(held, None):
        return aside.group()
    clause = _goes_on(held)
    if clause is None:
        return " "
    rest = held[clause:]
    return " " if _NEGATION.search(rest) and _goes_on(rest) is None else aside.group()


def _goes_on(said: str) -> int | None:
    """Where the second clause after ``said``'s statement of absence opens, if it has one.

    ", and" or ", or" closes a list where an item was listed with a comma before it and the list
    was not closed since, "Windows, macOS, and BSD"; where nothing was, "X, and widgets are
    grey", where "and" or "or" closed the list already, "red or blue, and widgets are grey", or
    where a verb ``_VERB`` reads follows it and no question word comes before it, "red, green,
    and widgets are grey" (not "whether Windows, macOS, and BSD are supported"), it opens a
    clause. ", or" or ", and" before a question word goes on with the question, not to a
    clause, "whether it can, or how", unless code follows it. Each stretch between two matches
    is read once, so the whole is linear.
    """
    listing = False  # an item has been listed with a comma, and no "and" or "or" closed the list
    read = 0
    last_verb = max((v.start() for v in _VERB.finditer(said)), default=-1)
    last_code = said.rfind("`")  # a question with code after it may answer: it is a clause
    question = _QUESTION.search(said)
    asked = len(said) if question is None else question.start()  # the first question word
    for m in _GOES_ON.finditer(said):
        for listed in _LISTING.finditer(said, read, m.start()):
            listing = listed["comma"] is not None
        read = m.end()
        asks = _QUESTION_NEXT.match(said, m.end()) is not None
        if m["joined"] is not None and asks and last_code < m.end():
            listing = False  # "whether it can, or how": the question again, not a clause
            continue
        if m["joined"] is None or not listing:
            return m.end()
        if last_verb > m.end() and asked > m.start():
            return m.end()  # "red, green, and widgets are grey"
        listing = False  # the list is closed: a second ", and" opens a clause
    return None


def _only_describes(clause: str) -> bool:
    """Whether the second ``clause`` only says what the passages do cover (``_DESCRIBES``).

    "...; they only cover installation [1]." says no more than an aside "(they only discuss
    installation [2])" does, and is read as that aside is: as the draft's word on the passages,
    unless it names something as code, which a check then reads against the passage it cites.
    """
    described = _DESCRIBES.fullmatch(clause)
    return (
        described is not None
        and _CODE_SPAN.search(clause) is None
        and _VERB.search(described["covered"]) is None
        and _FIGURE.search(_PARENTHESISED_NUMBER.sub(" ", described["covered"])) is None
        and _goes_on(described["covered"]) is None
    )


def _numbers_noun(marker: re.Match[str]) -> bool:
    """Whether ``marker`` stands right after the noun it numbers: "passage [1] does not say"."""
    before = marker.string[max(0, marker.start() - 9) : marker.start()]
    return _NAMES_PASSAGE.search(before) is not None


def _unless_numbering(marker: re.Match[str]) -> str:
    """Nothing for a passage marker, or its first number where it numbers the noun before it.

    One number, as " [1]": the commas and dashes of "[1, 2]" are no second clause.
    """
    first = _FIRST_NUMBER.search(marker.group())
    return f" [{first.group()}]" if first and _numbers_noun(marker) else ""


def _numbers_kept(marker: re.Match[str]) -> str:
    """Nothing for a passage marker, or its numbers where it numbers the noun before it."""
    return f" {_BRACKETS.sub('', marker.group().strip())}" if _numbers_noun(marker) else ""


def without_markers(markdown: str) -> str:
    """The text with its bracketed passage markers taken out: a reason is shown without them.

    A marker that numbers its noun stays as its numbers: "passage [1] does not say" reads
    "passage 1 does not say", not "passage does not say". A range between two markers goes
    whole, "a widget [1] to [3]." reads "a widget.", or stays as "passage 1 to 3".
    """
    return _BRACKET_MARKER.sub(_numbers_kept, markdown).strip()

"""A question becomes an FTS5 query (docs/retrieval.md, "From a question to a search").

Nothing from the question survives as query syntax: it is cut into words, each word is
lowercased and quoted as a literal, and the words are joined with OR. Quoting is what turns
``AND``, ``NEAR``, ``col:value`` and stray quotes into ordinary words; OR rather than AND
because BM25 does the ranking and one unusual word must not empty the result.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Collection

from bot.corpus.identifiers import compound_words
from bot.index.lexicon import alternatives

MAX_QUERY_TERMS = 32  # a pasted stack trace still gets a search, not a database pathology

# Letters and digits only: the same units the index's unicode61 tokenizer keeps.
_WORD = re.compile(r"[^\W_]+")

# Words that say how a question is asked rather than what about. Headings outweigh bodies,
# and FAQ headings are phrased as questions, so these would match the wrong sections.
_FUNCTION_WORDS_TEXT = """
a able about above actually after again against all already also am an and any anybody
anyone anything are aren as at be because been before being below between bit both but by
can cannot could couldn currently d did didn do does doesn doing don down during each eg
else etc even ever everything exactly few folks for from further get got guys had hadn has
hasn have haven having he hello her here hers herself hey hi him himself his how however i
ie if im in instead into is isn it its itself ive just kind know least let lets like ll
lot lots m maybe me might mine more most must mustn my myself need needs no nor not now of
ok okay on once one only or other ought our ours ourselves out over own please pls
possible question re really right s said same say says seem seems shall shan she should
shouldn so some somebody somehow someone something sort still such t tell than thank
thanks that the their theirs them themselves then there these they thing things this those
though through thx to too tried try trying under until up upon us ve very via wanna want
wanted wants was wasn way we were weren what whats when where whether which while who whom
whose why will with within without won wonder wondering would wouldn yes yet you your
yours yourself yourselves
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


def question_words(question: str) -> list[str]:
    """The question's words, lowercased, as the index's tokenizer cuts them."""
    return [match.group(0).lower() for match in _WORD.finditer(question)]


def stem(word: str) -> str:
    """``word`` without a regular ending, so that its forms meet in a comparison of words.

    Enough to let "update", "updates", "updated" and "updating" meet; nothing cleverer. The
    index has its own stemmer: this is for the comparisons made outside it.
    """
    for suffix in ("ing", "ed", "es", "s"):
        if len(word) > len(suffix) + 3 and word.endswith(suffix) and not word.endswith("ss"):
            word = word[: -len(suffix)]
            break
    return word.removesuffix("e") if len(word) > 4 else word


def identifiers(question: str) -> dict[str, list[str]]:
    """The question's compound identifiers, lowercased as searched, with their words.

    ``WithBaseURL`` gives ``{"withbaseurl": ["with", "base", "url"]}``: camelCase and
    PascalCase names, split as the index splits them (``compound_words``). A snake_case name
    is not one here: like the index's tokenizer, the question's words are cut at underscores,
    so ``max_recv_msg_size`` is already searched as its words.
    """
    found: dict[str, list[str]] = {}
    for word in _WORD.findall(question):
        for name, parts in compound_words(word):
            found.setdefault(name.lower(), parts)
    return found


def identifier_phrases(question: str) -> list[str]:
    """The words of each compound identifier in the question, as one phrase each.

    ``WithBaseURL`` becomes ``with base url``: the identifier names one thing, and its words
    together find it (in split identifiers, and in prose that spells it out). Searched one by
    one, "base" and "url" would match every passage that mentions either; the identifier as
    written (``withbaseurl``) is searched as a word of its own.
    """
    return list(dict.fromkeys(" ".join(parts) for parts in identifiers(question).values()))


def query_terms(question: str, unknown: Collection[str] = ()) -> list[str]:
    """The distinct words searched for, function words dropped unless nothing else is left.

    An identifier in ``unknown`` (one the index does not hold as written: misspelled, or
    spelled out by the documentation) is followed by its words, searched one by one, since
    neither it nor the phrase of its words can match.
    """
    return content_terms(question, unknown) or _words_once(question, unknown)[:MAX_QUERY_TERMS]


def content_terms(question: str, unknown: Collection[str] = ()) -> list[str]:
    """The distinct words that say what the question is about; none for "what is it?".

    ``query_terms`` less the function words, which it keeps only when nothing else is left.
    """
    literal = written_as_code(question)
    return [
        w
        for w in _words_once(question, unknown)
        if (w not in FUNCTION_WORDS or w in literal) and not _lone_letter(w)
    ][:MAX_QUERY_TERMS]


def _words_once(question: str, unknown: Collection[str]) -> list[str]:
    parts = identifiers(question)
    words: list[str] = []
    for word in question_words(question):
        words.append(word)
        if word in unknown:
            words.extend(parts.get(word, ()))
    return list(dict.fromkeys(words))


# A flag (``--yes``, ``-all``), a code span holding one name (`App.After`, `things`), or a
# name called with its arguments (``try(var.foo, "x")``).
_WRITTEN_AS_CODE = re.compile(r"(?<![\w-])--?[^\W_][\w-]*|`[^`\s]+`|\b[^\W\d_]\w*(?=\()")


def written_as_code(question: str) -> set[str]:
    """The words the question writes as code: a flag's, a name's in backticks, a call's.

    Such a word names something, whatever it means in prose: ``--yes`` is click's
    ``confirmation_option``, `App.After` a hook, ``try(expr, fallback)`` an HCL function, so
    none of "yes", "after" and "try" is dropped as a function word. A call is a name with its
    opening parenthesis right after it; "a flag (or two)" is prose.
    """
    return {
        word.lower() for span in _WRITTEN_AS_CODE.findall(question) for word in _WORD.findall(span)
    }


def _lone_letter(word: str) -> bool:
    # "e.g.", "i.e." and the "v" of "v2" are letters, not words anyone searches for.
    return len(word) == 1 and not word.isdigit()


def phrases(question: str) -> list[str]:
    """Adjacent word pairs of the question, searched as phrases ("for expression").

    A phrase is rarer than either of its words, so a passage that says it as the question
    does ranks above one that merely mentions both words. Pairs of two function words are
    left out; a pair with one ("for expression") is how such a word gets to count at all.
    """
    pairs = []
    for first, second in itertools.pairwise(question_words(question)):
        if _weak(first) and _weak(second):
            continue
        if _lone_letter(first) or _lone_letter(second):
            continue
        pairs.append(f"{first} {second}")
    return list(dict.fromkeys(pairs))


def _weak(word: str) -> bool:
    return word in FUNCTION_WORDS or _lone_letter(word)


def build_query(question: str, unknown: Collection[str] = ()) -> str:
    """Return the FTS5 expression for ``question``; empty when it has no letters or digits.

    ``unknown`` names the question's identifiers the index does not hold (see
    ``query_terms``).

    The words come first, then the other forms of them documentation may use (see
    ``bot.index.lexicon``), then the words of each identifier as a phrase (before the word
    pairs, so that a long question still searches them), then the word pairs; the whole is
    cut at ``MAX_QUERY_TERMS``.
    """
    terms = query_terms(question, unknown)
    if not terms:
        return ""
    searched = [
        *terms,
        *alternatives(question_words(question)),
        *identifier_phrases(question),
        *phrases(question),
    ]
    return " OR ".join(_quote(t) for t in list(dict.fromkeys(searched))[:MAX_QUERY_TERMS])


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'

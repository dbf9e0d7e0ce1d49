"""A question becomes an FTS5 query (indexing reference, "How a question becomes a query").

Nothing from the question survives as query syntax: it is cut into words, each word is
lowercased and quoted as a literal, and the words are joined with OR. Quoting is what turns
``AND``, ``NEAR``, ``col:value`` and stray quotes into ordinary words; OR rather than AND
because BM25 does the ranking and one unusual word must not empty the result.
"""

from __future__ import annotations

import re

from bot.corpus.identifiers import split_identifier

MAX_QUERY_TERMS = 32  # a pasted stack trace still gets a search, not a database pathology

# Letters and digits only: the same units the index's unicode61 tokenizer keeps.
_WORD = re.compile(r"[^\W_]+")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)*")

# Words that say how a question is asked rather than what about. Headings outweigh bodies,
# and FAQ headings are phrased as questions, so these would match the wrong sections.
_FUNCTION_WORDS_TEXT = """
a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don
down during each else even ever few for from further get got had hadn has hasn have haven
having he her here hers herself him himself his how however i if im in into is isn it its
itself ive just let lets like me might mine more most must mustn my myself need needs no
nor not now of off on once one only or other ought our ours ourselves out over own please
pls same shall shan she should shouldn so some still such than thank thanks that the their
theirs them themselves then there these they thing things this those though through thx to
too under until up upon us very via was wasn way we were weren what whats when where
whether which while who whom whose why will with within without won would wouldn yes yet
you your yours yourself yourselves hi hey hello anyone someone somebody anybody s t d ll m
re ve
"""
FUNCTION_WORDS = frozenset(_FUNCTION_WORDS_TEXT.split())


def question_words(question: str) -> list[str]:
    """The question's words, lowercased, with the parts of compound identifiers after each.

    ``WithBaseURL`` contributes ``withbaseurl`` (matching the identifier as written) and then
    ``with``, ``base``, ``url`` (matching its words in prose and in split identifiers).
    """
    words: list[str] = []
    for match in _WORD.finditer(question):
        word = match.group(0)
        words.append(word.lower())
        for ident in _IDENTIFIER.findall(word):
            parts = split_identifier(ident)
            if len(parts) > 1:
                words.extend(parts)
    return words


def query_terms(question: str) -> list[str]:
    """The distinct words searched for, function words dropped unless nothing else is left."""
    words = list(dict.fromkeys(question_words(question)))
    content = [w for w in words if w not in FUNCTION_WORDS]
    return (content or words)[:MAX_QUERY_TERMS]


def build_query(question: str) -> str:
    """Return the FTS5 expression for ``question``; empty when it has no letters or digits."""
    return " OR ".join(_quote(term) for term in query_terms(question))


def _quote(term: str) -> str:
    return '"' + term.replace('"', '""') + '"'

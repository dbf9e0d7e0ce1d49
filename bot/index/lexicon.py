"""Other words for what a question says: the vocabulary gaps a stemmer cannot close.

The index stems with Porter, which joins regular inflections (``configure``/``configured``)
but not two of the ways people and documentation part company most often:

- irregular forms: a question asks how to *hide* a command, the page says it is *hidden*;
- phrasal verbs and plain synonyms: a question asks how to *turn on* a feature, the heading
  says *Enable*.

``alternatives`` returns, for the words of a question, the other forms worth searching for.
They are added to the query as further OR terms, so a passage that uses the question's own
words still ranks on them, and one written in the other vocabulary is found at all. Each
group below is a set of interchangeable forms; none is specific to one project. Groups are
kept small and unambiguous on purpose: a word with several unrelated senses in software
("hook", "run", "port") joins none, because every alternative also finds passages that
mean something else.
"""

from __future__ import annotations

from collections.abc import Sequence

# One group of interchangeable forms per line. First the irregular verbs whose forms Porter
# leaves apart (regular ones need nothing here), then phrasal verbs with their one-word
# equivalents and a few plain synonyms.
_GROUPS = """
begin, began, begun
break, broke, broken
bring, brought
build, built
buy, bought
catch, caught
choose, chose, chosen
drive, drove, driven
fall, fell, fallen
feed, fed
fly, flew, flown
forbid, forbade, forbidden
forget, forgot, forgotten
freeze, froze, frozen
grow, grew, grown
hide, hid, hidden
hold, held
keep, kept
lose, lost
override, overrode, overridden
overwrite, overwrote, overwritten
rewrite, rewrote, rewritten
seek, sought
sell, sold
send, sent
shake, shook, shaken
show, showed, shown
shrink, shrank, shrunk
speak, spoke, spoken
spend, spent
steal, stole, stolen
swear, swore, sworn
take, took, taken
teach, taught
tear, tore, torn
throw, threw, thrown
understand, understood
undo, undid, undone
wake, woke, woken
wear, wore, worn
write, wrote, written
turn on, switch on, enable, activate
turn off, switch off, disable, deactivate
callback, handler
delete, remove
precedence, priority
set up, setup
clean up, cleanup
shut down, shutdown
start up, startup
look up, lookup
log in, login, sign in
log out, logout, sign out
time out, timeout
"""


def _single_word_alternatives(text: str) -> dict[str, tuple[str, ...]]:
    # Only one-word forms are ever searched for (see ``alternatives``), so only they are kept.
    index: dict[str, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        group = [form.strip() for form in line.split(",")]
        for form in group:
            index[form] = tuple(o for o in group if o != form and " " not in o)
    return index


_ALTERNATIVES = _single_word_alternatives(_GROUPS)
_LONGEST_FORM = max(len(form.split()) for form in _ALTERNATIVES)


def alternatives(words: Sequence[str]) -> list[str]:
    """Other one-word forms of the question's words and word pairs, each once, in order.

    ``words`` is the question's lowercased word sequence. Only single words are returned: a
    phrase costs the index far more to match than a word (it reads word positions), and the
    one-word form is the one documentation tends to use (*enable* rather than *turn on*).
    Forms the question already uses are not repeated.
    """
    present = set(words)
    found: list[str] = []
    for position in range(len(words)):
        for width in range(_LONGEST_FORM, 0, -1):
            form = " ".join(words[position : position + width])
            for other in _lookup(form):
                if other not in present and other not in found:
                    found.append(other)
    return found


def _lookup(form: str) -> tuple[str, ...]:
    # The groups hold singular forms; the index's stemmer matches their plurals already.
    if form in _ALTERNATIVES:
        return _ALTERNATIVES[form]
    if form.endswith("s") and " " not in form:
        return _ALTERNATIVES.get(form[:-1], ())
    return ()

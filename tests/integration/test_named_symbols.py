"""A symbol the question names by name is not marked down for being deprecated or private."""

from pathlib import Path

import pytest

from bot.engine import Engine
from tests.answering import built_engine

DIAL_GO = """// Package dial opens connections.
package dial

import "time"

// DialOption configures how Dial connects.
type DialOption func()

// WithTimeout sets how long dialing may take.
//
// Deprecated: use a context with a deadline instead.
func WithTimeout(d time.Duration) DialOption { return nil }

// WithBlock makes Dial wait for the connection. Without it Dial returns at once, and
// WithTimeout is ignored: nothing waits for the timeout.
func WithBlock() DialOption { return nil }

// defaultRetries is how often Dial tries again.
const defaultRetries = 3

// Retries sets how often Dial tries again; it is defaultRetries unless set.
func Retries(n int) DialOption { return nil }
"""


@pytest.fixture
async def engine(tmp_path: Path):
    # The questions name the repository ("Dial"): the search of it fills the first slots.
    async with built_engine(tmp_path, {"dial": {"dial.go": DIAL_GO}}) as opened:
        yield opened


@pytest.fixture
async def unnamed_engine(tmp_path: Path):
    # A repository the questions do not name: the search of everything answers them.
    async with built_engine(tmp_path, {"netconn": {"dial.go": DIAL_GO}}) as opened:
        yield opened


async def _symbols(engine: Engine, question: str) -> list[str]:
    return [r.symbol for r in await engine.retriever.retrieve(question)]


async def test_a_deprecated_symbol_ranks_below_what_replaced_it_unless_named(engine):
    unnamed = "Dial returns at once and the timeout is ignored: nothing waits, why?"
    assert (await _symbols(engine, unnamed))[0] == "WithBlock"
    named = (
        "`dial.WithTimeout(5*time.Second)` is ignored: Dial returns at once and nothing waits, why?"
    )
    assert (await _symbols(engine, named))[0] == "WithTimeout"


async def test_a_private_constant_ranks_below_the_option_unless_named(engine):
    unnamed = "how often does Dial try again unless set?"
    assert (await _symbols(engine, unnamed))[0] == "Retries"
    named = "how often does Dial try again unless set, and what sets defaultRetries?"
    assert (await _symbols(engine, named))[0] == "defaultRetries"


async def test_a_named_symbol_is_not_marked_down_where_no_repository_is_named(unnamed_engine):
    unnamed = "Dial returns at once and the timeout is ignored: nothing waits, why?"
    assert (await _symbols(unnamed_engine, unnamed))[0] == "WithBlock"
    named = "dial.WithTimeout(5*time.Second) is ignored: nothing waits, why?"
    assert (await _symbols(unnamed_engine, named))[0] == "WithTimeout"
    private = "how often does Dial try again unless set, and what sets defaultRetries?"
    assert (await _symbols(unnamed_engine, private))[0] == "defaultRetries"

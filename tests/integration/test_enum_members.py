"""A bare enumeration member ranks below the page that explains what it stands for."""

from pathlib import Path

import pytest

from bot.engine import Engine
from tests.answering import built_engine

SYNTAX_MD = """# Template syntax

## Template expressions

A template expression embeds a sequence of literal text and interpolations in a
configuration. An interpolation is written `${ ... }` and is replaced by the value of the
expression inside it, converted to a string. A directive is written `%{ ... }` and chooses
or repeats a part of the template, with `if`, `else`, `for` and `endfor`.

A template is written between quotes, or as a heredoc: `<<` or `<<-` and a marker, the
heredoc's lines, then the marker alone on its line. A `<<-` heredoc removes the spaces that
every one of its lines begins with, so an indented heredoc reads as if it were not: a
heredoc's own indentation is not part of its text.

A literal `${` is written `$${`, and a literal `%{` is written `%%{`.

## Comments

A comment starts with `#` or `//` and runs to the end of its line; `/*` starts one that
runs to the next `*/`.

## Numbers

A number is written in decimal, with an optional fraction and exponent.

## Operators

Arithmetic, comparison and logical operators combine expressions, in the usual order.

## Conditionals

`cond ? a : b` is `a` when the condition holds and `b` otherwise.

## Function calls

A function is called by its name and its arguments in parentheses.

## Attributes and blocks

An attribute assigns a value to a name; a block groups attributes under a type and labels.
"""

TOKEN_GO = """package lexer

// TokenType says which kind of token the scanner found.
type TokenType rune

const (
	TokenOHeredoc TokenType = 'H'
	TokenCHeredoc TokenType = 'h'
	TokenComment  TokenType = 'C'
	TokenNumber   TokenType = 'N'
	TokenIdent    TokenType = 'I'
	TokenOBrace   TokenType = '{'
	TokenCBrace   TokenType = '}'
)
"""


@pytest.fixture
async def engine(tmp_path: Path):
    files = {"docs/syntax.md": SYNTAX_MD, "lexer/token.go": TOKEN_GO}
    async with built_engine(tmp_path, {"tmpl": files}) as opened:
        yield opened


async def _headings(engine: Engine, question: str) -> list[str]:
    return [r.symbol or r.heading for r in await engine.retriever.retrieve(question)]


async def test_the_page_comes_before_the_enumeration_members_named_by_its_subject(engine):
    found = await _headings(engine, "how does a heredoc strip the indentation?")
    assert found[0] == "Template expressions", found
    assert "TokenOHeredoc" in found  # still found, below the page


async def test_an_enumeration_member_the_question_names_comes_first(engine):
    found = await _headings(engine, "which heredoc does TokenOHeredoc open, and what is its value?")
    assert found[0] == "TokenOHeredoc", found

"""The index of whole pages of prose: it follows the documents, and orders prose alone."""

from __future__ import annotations

import dataclasses
import sqlite3
from contextlib import closing
from pathlib import Path

import pytest

from bot.corpus.chunk import Kind
from bot.corpus.markdown import chunk_markdown
from bot.index.store import Store
from bot.index.writer import (
    DocumentData,
    SourcePlan,
    clear_documents,
    drop_sources,
    page_text,
    write_source,
)
from tests.answering import answer_config, built_engine, open_indexed
from tests.gitrepo import commit, make_repo

GUIDE = """# Guide

## Installing

Install the frobnicator with the package manager of your system.

## Tuning

Set the frobnication depth to seven.
"""
FAQ = """# Questions

## Why is it slow?

A deep frobnication takes longer; lower the depth.
"""
DIAL_GO = """// Package dial opens connections.
package dial

// Dial opens a frobnicated connection.
func Dial() {}
"""


def _pages(index: Path) -> dict[str, str]:
    """Each indexed page's text, by the path of its document."""
    with closing(sqlite3.connect(index)) as db:
        rows = db.execute(
            "SELECT d.path, p.text FROM pages_fts p JOIN documents d ON d.id = p.rowid"
        ).fetchall()
    return dict(rows)


def _matching(index: Path, word: str) -> list[str]:
    with closing(sqlite3.connect(index)) as db:
        rows = db.execute(
            "SELECT d.path FROM pages_fts p JOIN documents d ON d.id = p.rowid "
            "WHERE pages_fts MATCH ? ORDER BY d.path",
            (f'"{word}"',),
        ).fetchall()
    return [row[0] for row in rows]


async def test_each_page_of_prose_is_indexed_whole_and_code_is_not(tmp_path):
    repos = {"frob": {"docs/guide.md": GUIDE, "docs/faq.md": FAQ, "dial/dial.go": DIAL_GO}}
    async with built_engine(tmp_path, repos) as engine:
        pages = _pages(engine.config.index_path)
    assert set(pages) == {"docs/guide.md", "docs/faq.md"}
    sections = [(c.heading, c.text) for c in chunk_markdown(GUIDE)]
    assert pages["docs/guide.md"] == page_text(sections)
    assert "Set the frobnication depth to seven." in pages["docs/guide.md"]


async def test_a_page_rewritten_or_removed_leaves_no_row_of_its_old_text(tmp_path):
    estate = tmp_path / "estate"
    make_repo(estate / "frob", {"docs/guide.md": GUIDE, "docs/faq.md": FAQ})
    engine = await open_indexed(answer_config(tmp_path, estate, "none"))
    try:
        index = engine.config.index_path
        assert _matching(index, "seven") == ["docs/guide.md"]
        commit(
            estate / "frob",
            {"docs/guide.md": GUIDE.replace("seven", "eleven"), "docs/faq.md": None},
        )
        report = await engine.refresh()
        assert not report.failed, report
    finally:
        await engine.close()
    assert _matching(index, "seven") == []
    assert _matching(index, "eleven") == ["docs/guide.md"]
    assert set(_pages(index)) == {"docs/guide.md"}


async def test_a_dropped_source_takes_its_pages_with_it(tmp_path):
    repos = {"frob": {"docs/guide.md": GUIDE}, "other": {"docs/faq.md": FAQ}}
    async with built_engine(tmp_path, repos) as engine:
        await drop_sources(engine.store, ["frob"])
        pages = _pages(engine.config.index_path)
    assert set(pages) == {"docs/faq.md"}


async def test_an_index_made_before_pages_were_indexed_gets_them_from_its_chunks(tmp_path):
    repos = {"frob": {"docs/guide.md": GUIDE, "docs/faq.md": FAQ, "dial/dial.go": DIAL_GO}}
    async with built_engine(tmp_path, repos) as engine:
        index = engine.config.index_path
    written = _pages(index)
    with closing(sqlite3.connect(index)) as db:  # as the index was before migration 0009
        db.execute("DROP TABLE pages_fts")
        db.execute("DROP TRIGGER documents_after_delete_page")
        db.execute("DELETE FROM schema_migrations WHERE version = '0009_pages'")
        db.commit()
    async with await Store.open(index):
        pass
    assert _pages(index) == written


async def test_a_cleared_source_keeps_no_page(tmp_path):
    repos = {"frob": {"docs/guide.md": GUIDE}, "other": {"docs/faq.md": FAQ}}
    async with built_engine(tmp_path, repos) as engine:
        await clear_documents(engine.store, "frob")
        pages = _pages(engine.config.index_path)
    assert set(pages) == {"docs/faq.md"}


async def test_a_failed_write_leaves_every_page_as_it_was(tmp_path):
    async with built_engine(tmp_path, {"frob": {"docs/guide.md": GUIDE}}) as engine:
        index = engine.config.index_path
        before = _pages(index)
        rewritten = DocumentData(
            path="docs/guide.md",
            kind=Kind.DOC,
            title="Guide",
            page_url=None,
            commit="0" * 40,
            content_sha="1" * 40,
            fingerprint="changed",
            chunks=tuple(chunk_markdown(GUIDE.replace("seven", "eleven"))),
        )
        # A kind the index refuses to store fails the write after the first page is written.
        refused = dataclasses.replace(rewritten, path="docs/other.md", kind=Kind.NONE)
        plan = SourcePlan(
            name="frob",
            branch_commit="0" * 40,
            release_tag=None,
            release_commit=None,
            corpus_version=1,
            fresh=(rewritten, refused),
        )
        with pytest.raises(sqlite3.IntegrityError, match="CHECK constraint"):
            await write_source(engine.store, plan)
        assert _pages(index) == before


SETTINGS = """# Settings

## Startup

To keep tab completion in every new terminal, copy the script into the folder your shell
reads.

## Colours

Boxes are drawn in the colours of your theme; set `colour = "none"` for plain text.

## Sounds

The bell rings when a long job ends; set `bell = false` in the settings file to silence
it.

## Fonts

Boxes are drawn with the font of your terminal; a font without box-drawing characters
shows them as question marks, so pick one that has them.
"""
SHELLS = """# Shells

## Scripts

To keep tab completion in every new terminal, copy the script into the folder your shell
reads at startup.

## Generating the script

`widgets completion bash` prints the tab completion script for bash, and `widgets
completion zsh` the one for zsh.

## Trying it out

Source the script to have tab completion in the terminal you are in: `source <(widgets
completion bash)`.
"""
KEEP_GO = """// Package shell sets up shells.
package shell

// KeepCompletion installs the completion script where every new terminal loads it.
func KeepCompletion() error { return nil }
"""
# Pages about other things, so that the words of the question are rare, as in a real corpus.
OTHER_PAGES = {
    f"docs/widgets/{name}.md": (
        f"# {name.title()} widgets\n\n## Finish\n\nA {name} widget is {what}.\n"
    )
    for name, what in [
        ("round", "painted blue"),
        ("square", "made of oak"),
        ("tall", "sold in pairs"),
        ("small", "shipped folded"),
        ("heavy", "bolted to the floor"),
        ("light", "hung from hooks"),
    ]
}


async def test_prose_is_ordered_by_its_pages_around_code_that_keeps_its_place(tmp_path):
    # Scripts' page is about shell completion and Startup's is not: Scripts comes first of the
    # two. Its page would lift it above the function too, if code were ordered with prose.
    files = {
        "docs/settings.md": SETTINGS,
        "docs/shells.md": SHELLS,
        "shell/keep.go": KEEP_GO,
        **OTHER_PAGES,
    }
    async with built_engine(tmp_path, {"widget": files}) as engine:
        results = await engine.retriever.retrieve(
            "how do I keep tab completion in every new terminal?"
        )
    assert [(r.path, r.symbol or r.heading) for r in results[:3]] == [
        ("shell/keep.go", "KeepCompletion"),
        ("docs/shells.md", "Scripts"),
        ("docs/settings.md", "Startup"),
    ]

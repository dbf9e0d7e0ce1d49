"""Anchors and page URLs computed at index time exist in the site zensical really builds."""

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.corpus.markdown import chunk_markdown, title_from_path
from bot.corpus.site import parse_config
from bot.corpus.urls import page_url

ROOT = Path(__file__).resolve().parents[2]

TRICKY = """---
title: Tricky headings
---

Text before any heading.

# Tricky headings

## ReleaseSource.Private

a

## Hot reload & config: what's new?

b

## Hot reload & config: what's new?

c

## `urfave_cli_no_docs` build tag

d

## 2. Construction must not need credentials

e

## Ünïcödé — em dash … ellipsis

f

## Step one {#custom-id}

g

Setext heading with *emphasis* and a [link](https://example.org)
-----------------------------------------------------------------

h

## Entities &amp; <b>inline</b> HTML and `a<b`

i

## :warning: Overwound springs

w

## Using [the loader][loader] ![badge](badge.svg)

v

## Usage

j

### Usage

k

```sh
# not a heading
```

## _1

l

[loader]: https://example.org/loader
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    work = tmp_path_factory.mktemp("site")
    shutil.copytree(ROOT / "docs", work / "docs")
    shutil.copy(ROOT / "zensical.toml", work / "zensical.toml")
    (work / "docs" / "tricky.md").write_text(TRICKY)
    subprocess.run(
        [sys.executable, "-m", "zensical", "build", "--clean"],
        cwd=work,
        check=True,
        capture_output=True,
        timeout=120,
    )
    return work


def _pages(site: Path) -> list[Path]:
    return sorted((site / "docs").rglob("*.md"))


def test_every_page_url_is_a_built_page(site):
    layout = parse_config("zensical.toml", (site / "zensical.toml").read_text())
    assert layout.site_url is not None
    for page in _pages(site):
        rel = page.relative_to(site).as_posix()
        route = page_url(layout.site_url, layout.page_path(rel))[len(layout.site_url) :]
        assert (site / "site" / route / "index.html").is_file(), rel


def test_every_computed_anchor_exists_in_the_generated_html(site):
    layout = parse_config("zensical.toml", (site / "zensical.toml").read_text())
    assert layout.site_url is not None
    checked = 0
    for page in _pages(site):
        rel = page.relative_to(site).as_posix()
        route = page_url(layout.site_url, layout.page_path(rel))[len(layout.site_url) :]
        html = (site / "site" / route / "index.html").read_text()
        ids = set(re.findall(r'\sid="([^"]+)"', html))
        for chunk in chunk_markdown(page.read_text(), title_from_path(rel)):
            if chunk.anchor:
                assert chunk.anchor in ids, (rel, chunk.heading, chunk.anchor)
                checked += 1
    assert checked > 20


def test_the_tricky_page_gets_the_anchors_the_site_renders(site):
    anchors = [c.anchor for c in chunk_markdown(TRICKY, "Tricky")]
    assert anchors == [
        "",  # the text before any heading, with the empty H1 merged into it
        "releasesourceprivate",
        "hot-reload-config-whats-new",
        "hot-reload-config-whats-new_1",
        "urfave_cli_no_docs-build-tag",
        "2-construction-must-not-need-credentials",
        "unicode-em-dash-ellipsis",
        "custom-id",
        "setext-heading-with-emphasis-and-a-link",
        "entities-inline-html-and-ab",
        "overwound-springs",
        "using-the-loader",
        "usage",
        "usage_1",
        "_1",
    ]

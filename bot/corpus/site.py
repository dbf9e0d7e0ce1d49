"""A repository's docs site: where its config says the pages are and where they are served.

zensical reads ``zensical.toml`` (settings under ``[project]``, else at top level) and also
``mkdocs.yml``; both name ``site_url`` and ``docs_dir`` (default ``docs``, relative to the
config file). The config may sit at the repository root or under ``docs/``.
"""

from __future__ import annotations

import posixpath
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

import yaml

# Where a site config is looked for, in order of preference.
CONFIG_CANDIDATES = (
    "zensical.toml",
    "mkdocs.yml",
    "mkdocs.yaml",
    "docs/zensical.toml",
    "docs/mkdocs.yml",
    "docs/mkdocs.yaml",
)


@dataclass(frozen=True, slots=True)
class SiteLayout:
    """A docs site: its config file, its pages' directory and its public URL."""

    config_path: str
    docs_dir: str  # repository-relative, no trailing slash; "" for the repository root
    site_url: str | None  # with a trailing slash, or None when the config names none

    def contains(self, path: str) -> bool:
        """Whether ``path`` is a page of this site (under its docs directory)."""
        return self.site_url is not None and (
            not self.docs_dir or path.startswith(self.docs_dir + "/")
        )

    def page_path(self, path: str) -> str:
        """The page's path inside the site's docs directory."""
        return path[len(self.docs_dir) + 1 :] if self.docs_dir else path


def find_config(paths: Iterable[str]) -> str | None:
    """Return the site config among ``paths`` that zensical would read, if any."""
    present = set(paths)
    return next((c for c in CONFIG_CANDIDATES if c in present), None)


class _LenientLoader(yaml.SafeLoader):
    """A safe YAML loader that reads MkDocs' ``!!python/name`` and ``!ENV`` tags as nothing."""


def _ignore_tag(loader: yaml.SafeLoader, suffix: str, node: yaml.Node) -> None:
    return None


_LenientLoader.add_multi_constructor("", _ignore_tag)


def parse_config(config_path: str, text: str) -> SiteLayout:
    """Read a site config's ``site_url`` and ``docs_dir``; malformed files raise ``ValueError``."""
    data: Any
    text = text.removeprefix("\ufeff")  # an editor's byte-order mark: TOML rejects it as text
    if config_path.endswith(".toml"):
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ValueError(f"{config_path} is not valid TOML: {exc}") from None
        if isinstance(data.get("project"), dict):
            data = data["project"]
    else:
        try:
            data = yaml.load(text, Loader=_LenientLoader)  # noqa: S506 - the loader is safe
        except yaml.YAMLError as exc:
            raise ValueError(f"{config_path} is not valid YAML: {exc}") from None
    if not isinstance(data, dict):
        raise ValueError(f"{config_path} does not hold a table of settings")

    site_url = data.get("site_url")
    if not isinstance(site_url, str) or "://" not in site_url:
        site_url = None
    elif not site_url.endswith("/"):
        site_url += "/"
    docs_dir = data.get("docs_dir", "docs")
    if not isinstance(docs_dir, str):
        docs_dir = "docs"
    base = posixpath.dirname(config_path)
    joined = posixpath.normpath(posixpath.join(base, docs_dir.strip("/")))
    return SiteLayout(config_path, "" if joined == "." else joined, site_url)

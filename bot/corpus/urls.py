"""Citation URLs (indexing reference, "Citation URLs").

Docs pages cite the public site: the docs directory is the site root, ``index.md`` is its
directory's page, and every other page becomes a directory named after the file. Everything
else cites the file pinned to the indexed commit, never a branch, so a citation cannot drift
away from the text it supported.
"""

from __future__ import annotations

from urllib.parse import quote


def page_url(site_url: str, page_path: str, anchor: str = "") -> str:
    """``a/b.md`` -> ``<site>a/b/``; ``a/index.md`` -> ``<site>a/``; ``index.md`` -> ``<site>``."""
    stem = page_path.rsplit(".", 1)[0]
    is_index = stem == "index" or stem.endswith("/index")
    route = stem[: -len("index")] if is_index else stem + "/"
    url = site_url.rstrip("/") + "/" + quote(route)
    return f"{url}#{anchor}" if anchor else url


def blob_url(web_url: str, commit: str, path: str, start: int, end: int) -> str:
    """A GitLab blob link at ``commit`` with the line range highlighted (``#L10-20``)."""
    lines = f"#L{start}" if start == end else f"#L{start}-{end}"
    return f"{web_url.rstrip('/')}/-/blob/{commit}/{quote(path)}{lines}"


def local_url(repo: str, path: str, start: int, end: int) -> str:
    """A citation for a repository with no web address: its name, path and line range."""
    lines = f"#L{start}" if start == end else f"#L{start}-L{end}"
    return f"{repo}/{path}{lines}"

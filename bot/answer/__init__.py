"""Composing an answer from retrieved passages, and deciding whether it may be returned.

``composer`` holds the seam (``Composer``) and what crosses it (``Answer``); ``fence`` and
``prompt`` build what a model is sent; ``grounding`` checks what comes back; ``outcome`` is
the pure-data result the CLI prints and the Discord layer renders; ``anthropic_api`` and
``claude_local`` are the providers, chosen by ``providers``.
"""

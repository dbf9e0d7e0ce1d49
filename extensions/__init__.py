"""The Discord layer: one extension per slash command (``ask``, ``sources``, ``status``).

Beside them, ``messages`` turns the plain replies of ``bot.discord_format`` into hikari calls
and ``schedule`` runs the refresh timer inside ``serve``. Only this package and ``bot/app.py``
import hikari, lightbulb and APScheduler.
"""

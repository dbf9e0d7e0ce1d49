"""Discord messages as plain data: what each slash command shows, kept within Discord's limits.

Nothing here imports the Discord client library; ``extensions/`` turns these values into
calls. That keeps every message unit-testable and the engine free of Discord.
"""

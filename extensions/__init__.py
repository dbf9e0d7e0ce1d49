"""Discord extensions: one module per slash command."""

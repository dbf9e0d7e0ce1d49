"""phpbotscout: answers questions about an organisation's software from its own docs and code."""

__version__ = "0.1.0"

"""Accounts: login sessions (sessions.py) and calendar subscription tokens (feeds.py)."""

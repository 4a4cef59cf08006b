"""Limits: the sign-in throttle, per-user budgets, body and header guards."""

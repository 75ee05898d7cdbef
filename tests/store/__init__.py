"""Tests of bot.store against a real Redis."""

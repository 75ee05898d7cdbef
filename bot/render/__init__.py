"""Renderers of a `Report` and of a whole entry for the terminal (text) and for documents (markdown)."""

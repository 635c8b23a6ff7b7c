"""Transforms for image pairs and captions."""

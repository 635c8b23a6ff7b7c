"""Captioning and retrieval metrics."""

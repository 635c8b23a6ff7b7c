"""Necks between a pair encoder and its heads."""

"""Visualisation: attention maps of the pair encoder."""

"""High-level inference API."""

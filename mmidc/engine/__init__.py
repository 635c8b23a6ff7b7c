"""Runner-side pieces: safe checkpoint loading, hooks."""

"""Image-pair data sets and their transforms."""

"""A tiny CLIP pretrained on a synthetic image-text corpus with open_clip's
trainer, and zero-shot probes of what it learned
(``projects/tiny_clip/README.md``).

Run from the repository root as ``python -m projects.tiny_clip.pretrain`` and
``python -m projects.tiny_clip.zero_shot``. The package imports mmidc's
public pieces (the synthetic renderer, the open_clip glue); mmidc imports
nothing of it. Importing it loads nothing heavy: the modules are imported on
demand.
"""


class TinyCLIPError(RuntimeError):
    """The pre-training cannot go on: open_clip_train's packages are
    missing, or it failed. The message says what to do; the command prints it
    and exits with status 1."""

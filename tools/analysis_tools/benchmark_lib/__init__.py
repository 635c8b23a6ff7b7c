"""Measurement code of ``tools/analysis_tools/benchmark.py`` (not part of the
``mmidc`` package: only the benchmark tool and its tests use it).

- :mod:`.measure`: machine description and load, timing, matmul peak, FLOP
  counting, profiles.
- :mod:`.workloads`: CLIP4IDC models, synthetic batches, decoding loops.
- :mod:`.e2e`: ``tools/train.py`` end to end on a data set.
- :mod:`.peer`: open_clip's own CLIP training step.
- :mod:`.inference`: ``tools/caption_pair.py`` against batched decoding.
- :mod:`.report`: markdown tables and the generated sections of the docs.
"""

"""Measurements: where the time of training, decoding, loading and scoring
goes (``python -m mmidc_lab.benchmark`` and the speed commands are command
lines over these modules; docs/benchmark.md).

- :mod:`.measure`: machine description and load, timing, matmul peak, FLOP
  counting, profiles.
- :mod:`.workloads`: CLIP4IDC models, synthetic batches, decoding loops.
- :mod:`.e2e`: the training command (``python -m mmidc.cli.train``) end to
  end on a data set.
- :mod:`.peer`: open_clip's own CLIP training step.
- :mod:`.inference`: the batch captioning command against batched decoding.
- :mod:`.loader_speed`: data-loader throughput, from PNGs and from the cache.
- :mod:`.vocab_speed`: the caption head's step, full vs restricted vocabulary.
- :mod:`.demo_load`: concurrent caption requests against the web demo.
- :mod:`.sections`: the benchmark's sections (training steps, variants,
  loader, end to end, decoding, CLI, vocabulary, scoring).
- :mod:`.benchmark_run`: a whole run: settings, presets, targets, tables.
- :mod:`.report`: markdown tables and the generated sections of the docs.
"""

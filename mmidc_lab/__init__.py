"""The project's measurement and pipeline code: the quickstart pipeline, the
ablations and the benchmarks, with the command lines that run them.

Run from a clone's root (where the configs' ``data/`` and ``work_dirs/``
paths are)::

    python -m mmidc_lab.quickstart          # the quickstart pipeline
    python -m mmidc_lab.ablations ...       # CLIP4IDC's ablations in miniature
    python -m mmidc_lab.idc_pcl_ablation    # IDC-PCL's ablation in miniature
    python -m mmidc_lab.benchmark ...       # the speed benchmark
    python -m mmidc_lab.loader_speed ...    # (and vocab_speed, demo_load_test)

It is a package of the repository, like ``projects/``: it is not installed
with the wheel, and ``mmidc`` never imports it. It uses mmidc as a user
does: stages run as ``python -m mmidc.cli.train`` / ``python -m
mmidc.cli.test`` in a subprocess, other steps call the library in-process,
and configs are found through the installed package
(:mod:`mmidc_lab.configs`).

- :mod:`.experiments`: the pipelines (quickstart, ablations).
- :mod:`.benchmarks`: the measurements of the speed benchmark.
- :mod:`.configs`: the path of a shipped config or a project's config.
- :mod:`.checkout`: the git commit a measurement ran with.
- :mod:`.run_logs`: a run's logged scalars and its val-best checkpoint.
"""

"""Experiment pipelines: training and test runs of mmidc's commands
(``python -m mmidc.cli.train`` / ``python -m mmidc.cli.test``) as stages
that resume, pick the val-best checkpoint, record their time and load, and
tabulate what they scored (``python -m mmidc_lab.quickstart`` and the
ablation commands are command lines over these modules).

- :mod:`.stages`: running a stage's command, its ``DONE`` marker, the
  training and test stages, the synthetic data set a pipeline needs.
- :mod:`.run_configs`: ``KEY=VALUE`` options, the val-best key, the test
  config of a stage.
- :mod:`.summary_tables`: mean and sample sd, markdown tables, the machine.
- :mod:`.quickstart`: the quickstart's pipeline and its tables.
- :mod:`.clip4idc_ablation`: CLIP4IDC's ablations in miniature (row specs,
  runs, the report page).
- :mod:`.idc_pcl_ablation`: IDC-PCL's ablation (its paper's Table 4) in
  miniature.

The pipelines run in the current directory, a clone's root: the configs'
``data/`` and the pipelines' ``work_dirs/`` are relative to it.
"""


class ExperimentError(RuntimeError):
    """A pipeline cannot go on: a stage failed, or a work dir holds a run of
    other settings. The message says what to do; command lines print it and
    exit with status 1."""

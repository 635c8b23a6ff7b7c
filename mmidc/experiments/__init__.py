"""Experiment pipelines over the project's tools: runs of ``tools/train.py``
and ``tools/test.py`` as stages that resume, pick the val-best checkpoint,
record their time and load, and tabulate what they scored
(``tools/quickstart.py`` and the ablation tools are command lines over these
modules).

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
- :mod:`.tiny_clip_pretraining`: the tiny CLIP pre-trained with
  open_clip's trainer.

The pipelines run in the current directory, the root of a checkout (whose
``tools/`` they run; the command lines change to theirs). The package is
imported on demand (``import mmidc`` does not load it).
"""


class ExperimentError(RuntimeError):
    """A pipeline cannot go on: a stage failed, or a work dir holds a run of
    other settings. The message says what to do; command lines print it and
    exit with status 1."""

"""What prepares and checks a run, shared by the commands (:mod:`mmidc.cli`)
and the data-preparation tools.

- :mod:`.loader_setup`: the ``'auto'`` loader settings of the data-set
  bases (``configs/_base_/datasets/image_pair.py``) set for the machine, and
  the switch to the pre-resized image cache.
- :mod:`.config_check`: the checks ``tools/train.py`` and ``tools/test.py``
  run on a config before building anything, and their launch options.
- :mod:`.data_root`: a config's ``'{data_root}/...'`` placeholders filled
  from its final ``data_root`` (``vocab_file``, ``adapt_work_dir``,
  ``*_root``), and a loader on another folder stops the run.
- :mod:`.idc_runner`: ``IDCRunner``, the shipped configs' runner (their
  placeholders filled when MMPretrain's tools build it).
- :mod:`.cfg_options`: ``--cfg-options KEY=VALUE``.
- :mod:`.dataset_args`: the data set a data-preparation tool reads (a config,
  or ``--dataset-type`` and ``--data-root``).
- :mod:`.step_options`: the fused optimizer and ``torch.compile`` switches.
- :mod:`.amp`: the mixed-precision optimizer wrapper.
- :mod:`.global_batch`: the global batch of a run against its config's base
  batch, logged by ``tools/train.py``.
- :mod:`.work_dir_lock`: one training run per work dir.

Each module is imported on its own (``import mmidc`` does not load the
package); the model and data packages never import it.
"""

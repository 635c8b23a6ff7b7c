"""What prepares and checks a run, shared by the commands (:mod:`mmidc.cli`)
and the data-preparation tools. Each module is imported on its own
(``import mmidc`` does not load the package); the model and data packages
never import it.

- :mod:`.loader_setup`: the ``'auto'`` loader settings set for the machine,
  and the switch to the pre-resized image cache.
- :mod:`.config_check`: the checks ``tools/train.py`` and ``tools/test.py``
  run on a config before building anything, and their launch options.
- :mod:`.data_root`: a config's ``'{data_root}/...'`` placeholders filled
  from its final roots; a loader on another folder stops the run.
- :mod:`.idc_runner`: ``IDCRunner``, the shipped configs' runner.
- :mod:`.cfg_options`: ``--cfg-options KEY=VALUE``.
- :mod:`.dataset_args`: the data set a data-preparation tool reads.
- :mod:`.step_options`: the fused optimizer and ``torch.compile`` switches.
- :mod:`.amp`: the mixed-precision optimizer wrapper.
- :mod:`.global_batch`: the global batch against the config's base batch.
- :mod:`.work_dir_lock`: one training run per work dir.
"""

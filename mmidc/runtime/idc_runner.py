"""The runner of the shipped configs (``configs/_base_/default_runtime.py``:
``runner_type='mmidc.runtime.idc_runner.IDCRunner'``, its import path, which
MMPretrain's tools find without mmidc's default scope)."""
import copy

from mmengine.runner import Runner

from mmidc.engine.checkpoint_hook import SafeCheckpointHook
from mmidc.engine.worker_sigterm import workers_ignore_sigterm
from mmidc.registry import RUNNERS
from mmidc.utils.config_placeholders import fill_placeholders
from .loader_setup import resolve_loader_defaults


@RUNNERS.register_module()
class IDCRunner(Runner):
    """MMEngine's :class:`~mmengine.runner.Runner`, built from a config whose
    ``{name}`` placeholders are filled (:func:`mmidc.utils.fill_placeholders`)
    and whose ``'auto'`` loader settings are set for this machine
    (:func:`~mmidc.runtime.loader_setup.resolve_loader_defaults`).

    MMPretrain's tools (what ``mim train mmpretrain`` runs) build a config's
    ``runner_type``, so they run the shipped configs as they are. The
    folders are not checked here (``tools/train.py`` checks them:
    :func:`~mmidc.runtime.data_root.apply_data_root`; ``DataRootCheckHook``
    warns).

    Its loaders' workers ignore SIGTERM from their start
    (:class:`~mmidc.engine.worker_sigterm.WorkerIgnoresSigterm`), so that
    ``SafeCheckpointHook`` saves at a ``scancel`` in every loop (an
    iteration-based loop starts its first workers when it is built, before
    any hook runs).
    """

    @classmethod
    def from_cfg(cls, cfg) -> 'IDCRunner':
        """Build the runner from ``cfg`` (left unchanged).

        Args:
            cfg (Config): The config.

        Returns:
            IDCRunner: The runner.
        """
        cfg = copy.deepcopy(cfg)
        fill_placeholders(cfg)
        resolve_loader_defaults(cfg)
        return super().from_cfg(cfg)

    def train(self):
        """:meth:`Runner.train`; a run that ends in an exception gives SIGTERM
        back to the handler it had before (as one that ends well does).

        Returns:
            nn.Module: The trained model.
        """
        try:
            return super().train()
        finally:
            for hook in self._hooks:
                if isinstance(hook, SafeCheckpointHook):
                    hook.restore_sigterm_handler()

    @staticmethod
    def build_dataloader(dataloader, seed=None, diff_rank_seed=False):
        """MMEngine's :meth:`~mmengine.runner.Runner.build_dataloader` (its
        worker seeding unchanged), whose workers first ignore SIGTERM.

        Args:
            dataloader (DataLoader | dict): The loader or its config.
            seed (int, optional): The random seed. Defaults to None.
            diff_rank_seed (bool): Whether ranks get different seeds.
                Defaults to False.

        Returns:
            DataLoader: The loader.
        """
        loader = Runner.build_dataloader(
            dataloader, seed=seed, diff_rank_seed=diff_rank_seed)
        workers_ignore_sigterm(loader)
        return loader

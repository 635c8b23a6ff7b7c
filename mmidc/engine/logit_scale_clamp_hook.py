"""Clamp a contrastive head's logit scale after every optimizer step."""
from mmengine.hooks import Hook
from mmengine.model import is_model_wrapper

from mmidc.registry import HOOKS


@HOOKS.register_module()
class LogitScaleClampHook(Hook):
    """Call ``clamp_logit_scale_()`` of every module that has it after each
    training iteration, i.e. after the optimizer step.

    The hook takes the bound over from the forward pass: a
    :class:`~mmidc.models.heads.ContrastiveAdaptationHead` uses the parameter
    unclamped once the hook has started (``before_train``), so its gradient
    is never cut off, and the hook clamps the parameter in place after each
    step. Without the hook the head clamps in the forward pass.

    A model without such a module is an error (the hook would do nothing).
    """

    priority = 'ABOVE_NORMAL'  # before checkpoints are written

    def before_train(self, runner) -> None:
        modules = self._clampable(runner)
        if not modules:
            raise ValueError(
                'LogitScaleClampHook: the model has no module with '
                'clamp_logit_scale_() (a ContrastiveAdaptationHead); remove '
                'the hook from custom_hooks')
        for module in modules:
            module.clamped_after_step = True  # the forward pass leaves it

    def after_train_iter(self, runner, batch_idx, data_batch=None,
                         outputs=None) -> None:
        for module in self._clampable(runner):
            module.clamp_logit_scale_()

    @staticmethod
    def _clampable(runner) -> list:
        model = runner.model
        if is_model_wrapper(model):
            model = model.module
        return [m for m in model.modules()
                if callable(getattr(m, 'clamp_logit_scale_', None))]

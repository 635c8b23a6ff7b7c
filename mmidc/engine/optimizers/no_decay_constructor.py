"""Weight decay off by parameter name or by norm layer, on top of MMEngine's
paramwise options."""
from typing import List, Optional, Union

from mmengine.optim import DefaultOptimWrapperConstructor
from torch import nn
from torch.nn.modules.batchnorm import _BatchNorm
from torch.nn.modules.instancenorm import _InstanceNorm

from mmidc.registry import OPTIM_WRAPPER_CONSTRUCTORS

__all__ = ['NoDecayOptimWrapperConstructor']

_NORMS = (_BatchNorm, _InstanceNorm, nn.GroupNorm, nn.LayerNorm)


@OPTIM_WRAPPER_CONSTRUCTORS.register_module()
class NoDecayOptimWrapperConstructor(DefaultOptimWrapperConstructor):
    """:class:`~mmengine.optim.DefaultOptimWrapperConstructor` with two more
    ``paramwise_cfg`` options that switch weight decay off independently of
    the learning-rate rules (``custom_keys``), which apply unchanged:

    - ``no_decay_keys`` (list[str]): every parameter whose full name
      contains one of these strings gets ``weight_decay=0``. ``['bias']``
      (BERT's rule) catches ``in_proj_bias`` of attention layers too, which
      MMEngine's ``bias_decay_mult`` (parameters named exactly ``bias``)
      does not.
    - ``no_decay_norms_in`` (list[str]): module prefixes (``'head'``); the
      parameters of every normalisation layer under one of them get
      ``weight_decay=0``.

    MMEngine's ``custom_keys`` give a parameter the options of one key only
    (the longest match), so "lr 1e-7 for the backbone" and "no decay for
    biases" cannot both be custom keys; here they combine. A key or prefix
    that matches no trainable parameter is an error (it is a typo).

    Example::

        optim_wrapper = dict(
            constructor='NoDecayOptimWrapperConstructor',
            optimizer=dict(type='BertAdam', lr=1e-4, weight_decay=0.01),
            paramwise_cfg=dict(custom_keys={'backbone': dict(lr_mult=1e-3)},
                               no_decay_keys=['bias'],
                               no_decay_norms_in=['head']))
    """

    def __init__(self,
                 optim_wrapper_cfg: dict,
                 paramwise_cfg: Optional[dict] = None):
        paramwise_cfg = dict(paramwise_cfg or {})
        self.no_decay_keys = self._names(
            paramwise_cfg.pop('no_decay_keys', ()), 'no_decay_keys')
        self.no_decay_norms_in = self._names(
            paramwise_cfg.pop('no_decay_norms_in', ()), 'no_decay_norms_in')
        # An empty paramwise_cfg would make the parent skip add_params.
        paramwise_cfg.setdefault('custom_keys', {})
        super().__init__(optim_wrapper_cfg, paramwise_cfg)

    @staticmethod
    def _names(value: Union[str, List[str]], option: str) -> tuple:
        if isinstance(value, str) or not all(
                isinstance(v, str) and v for v in value):
            raise TypeError(f'paramwise_cfg.{option} must be a list of '
                            f'non-empty strings, got {value!r}')
        return tuple(value)

    def add_params(self, params: List[dict], module: nn.Module,
                   prefix: str = '', **kwargs) -> None:
        super().add_params(params, module, prefix, **kwargs)
        if prefix:  # the parent recurses; finish once, at the top
            return
        no_decay = set()
        for key in self.no_decay_keys:
            hits = {id(p) for n, p in module.named_parameters()
                    if key in n and p.requires_grad}
            if not hits:
                raise ValueError(f'paramwise_cfg.no_decay_keys: {key!r} is '
                                 f'in no trainable parameter name')
            no_decay |= hits
        for where in self.no_decay_norms_in:
            hits = {id(p) for name, m in module.named_modules()
                    if isinstance(m, _NORMS) and (
                        name == where or name.startswith(where + '.'))
                    for p in m.parameters() if p.requires_grad}
            if not hits:
                raise ValueError(f'paramwise_cfg.no_decay_norms_in: no '
                                 f'trainable normalisation layer under '
                                 f'{where!r}')
            no_decay |= hits
        for group in params:
            param = group['params'][0]
            if id(param) in no_decay:
                group['weight_decay'] = 0.0

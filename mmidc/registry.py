"""Child registries of MMPretrain's, with scope ``mmidc``.

Every component of this package registers itself here. Because each registry
names the module that defines its members (``locations``), building from a
config with ``default_scope='mmidc'`` imports them on demand; ``import mmidc``
imports them all eagerly.
"""
from mmengine.registry import Registry
from mmpretrain import registry as mmpretrain_registry


def _child(name: str, parent: Registry, locations: list) -> Registry:
    return Registry(name, parent=parent, scope='mmidc', locations=locations)


_ENGINE = ['mmidc.engine']
RUNNERS = _child('runner', mmpretrain_registry.RUNNERS, _ENGINE)
RUNNER_CONSTRUCTORS = _child('runner constructor',
                             mmpretrain_registry.RUNNER_CONSTRUCTORS, _ENGINE)
LOOPS = _child('loop', mmpretrain_registry.LOOPS, _ENGINE)
HOOKS = _child('hook', mmpretrain_registry.HOOKS, _ENGINE)
LOG_PROCESSORS = _child('log processor', mmpretrain_registry.LOG_PROCESSORS,
                        _ENGINE)
OPTIMIZERS = _child('optimizer', mmpretrain_registry.OPTIMIZERS, _ENGINE)
OPTIM_WRAPPERS = _child('optim_wrapper', mmpretrain_registry.OPTIM_WRAPPERS,
                        _ENGINE)
OPTIM_WRAPPER_CONSTRUCTORS = _child(
    'optimizer wrapper constructor',
    mmpretrain_registry.OPTIM_WRAPPER_CONSTRUCTORS, _ENGINE)
PARAM_SCHEDULERS = _child('parameter scheduler',
                          mmpretrain_registry.PARAM_SCHEDULERS, _ENGINE)

DATASETS = _child('dataset', mmpretrain_registry.DATASETS, ['mmidc.datasets'])
DATA_SAMPLERS = _child('data sampler', mmpretrain_registry.DATA_SAMPLERS,
                       ['mmidc.datasets'])
TRANSFORMS = _child('transform', mmpretrain_registry.TRANSFORMS,
                    ['mmidc.datasets.transforms'])

MODELS = _child('model', mmpretrain_registry.MODELS, ['mmidc.models'])
MODEL_WRAPPERS = _child('model_wrapper', mmpretrain_registry.MODEL_WRAPPERS,
                        ['mmidc.models'])
WEIGHT_INITIALIZERS = _child('weight initializer',
                             mmpretrain_registry.WEIGHT_INITIALIZERS,
                             ['mmidc.models'])
TASK_UTILS = _child('task util', mmpretrain_registry.TASK_UTILS,
                    ['mmidc.models'])

METRICS = _child('metric', mmpretrain_registry.METRICS,
                 ['mmidc.evaluation'])
EVALUATORS = _child('evaluator', mmpretrain_registry.EVALUATORS,
                    ['mmidc.evaluation'])
#: The caption scoring protocols of ``IDCMetric`` (``protocol=dict(type=
#: 'RSIdsProtocol', ...)``): mmidc's own, no MMPretrain parent.
SCORING_PROTOCOLS = Registry('scoring protocol', scope='mmidc',
                             locations=['mmidc.evaluation.protocols'])

VISUALIZERS = _child('visualizer', mmpretrain_registry.VISUALIZERS,
                     ['mmidc.visualization'])
VISBACKENDS = _child('vis_backend', mmpretrain_registry.VISBACKENDS,
                     ['mmidc.visualization'])

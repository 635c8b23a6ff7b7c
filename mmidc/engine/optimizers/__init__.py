"""Optimizers and optimizer-wrapper constructors."""
from .bert_adam import BertAdam
from .no_decay_constructor import NoDecayOptimWrapperConstructor

__all__ = ['BertAdam', 'NoDecayOptimWrapperConstructor']

"""Parameter schedulers."""
from .bert_warmup_lr import BertWarmupLR, bert_warmup_factor

__all__ = ['BertWarmupLR', 'bert_warmup_factor']

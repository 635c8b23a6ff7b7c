"""Parameter schedulers."""
from .bert_warmup_lr import BertWarmupLR, bert_warmup_factor
from .noam_lr import NoamLR, noam_factor
from .run_share_warmup_lr import RunShareWarmupLR, warmup_steps

__all__ = ['BertWarmupLR', 'bert_warmup_factor', 'NoamLR', 'noam_factor',
           'RunShareWarmupLR', 'warmup_steps']

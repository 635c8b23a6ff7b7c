"""Captioning and retrieval metrics."""
from .caption_scorer import CaptionScorer, change_type_subsets
from .caption_truth_metric import CaptionTruthMetric
from .idc_metric import IDCMetric
from .retrieval_metric import RetrievalMetric
from ..protocols.rs_vocab import RSWordVocab

__all__ = ['CaptionScorer', 'CaptionTruthMetric', 'IDCMetric',
           'RetrievalMetric', 'change_type_subsets', 'RSWordVocab']

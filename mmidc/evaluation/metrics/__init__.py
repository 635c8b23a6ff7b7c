"""Captioning and retrieval metrics."""
from .caption_scorer import CaptionScorer, change_type_subsets
from .idc_metric import IDCMetric
from .retrieval_metric import RetrievalMetric

__all__ = ['CaptionScorer', 'IDCMetric', 'RetrievalMetric',
           'change_type_subsets']

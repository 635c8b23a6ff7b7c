"""FDA on a share of the batch: about as many sequences as the batch."""
from mmidc.registry import MODELS
from .difference_alignment_loss import DifferenceAlignmentLoss

__all__ = ['SplitBatchDifferenceAlignmentLoss']


@MODELS.register_module()
class SplitBatchDifferenceAlignmentLoss(DifferenceAlignmentLoss):
    """:class:`DifferenceAlignmentLoss` on the first ``B / (1 + K)`` pairs of
    a batch of ``B``, each with its ``K`` hard negatives (the published
    IDC-PCL code's FDA batch): about ``B`` sequences per step, the cost of
    the other tasks' steps, instead of ``B (1 + K)``.

    Args:
        temperature (float): As in :class:`DifferenceAlignmentLoss`.
        loss_weight (float): As in :class:`DifferenceAlignmentLoss`.
    """

    def num_pairs(self, batch_size: int, num_negatives: int) -> int:
        """``max(1, B // (1 + K))`` (arguments as in
        :meth:`DifferenceAlignmentLoss.num_pairs`)."""
        return max(1, batch_size // (num_negatives + 1))

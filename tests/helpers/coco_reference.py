"""pycocoevalcap's own METEOR, one JVM for the parity tests of a pytest run.

Starting pycocoevalcap's METEOR JVM and loading its paraphrase table takes
15-35 s on a 2-core machine; the parity tests of tests/test_evaluation (the
IDCMetric total and subsets, the 'rs_words' protocol) score against one
instance instead of one each. :func:`close_reference_meteor` stops it (a
later call starts a new one).
"""
import functools


@functools.lru_cache(maxsize=None)
def reference_meteor():
    """pycocoevalcap's ``Meteor()``, started at the first call."""
    from pycocoevalcap.meteor.meteor import Meteor
    return Meteor()


def close_reference_meteor() -> None:
    """Stop the JVM of :func:`reference_meteor` where one was started."""
    if reference_meteor.cache_info().currsize:
        meteor = reference_meteor()
        reference_meteor.cache_clear()
        meteor.__del__()  # pycocoevalcap closes its JVM there

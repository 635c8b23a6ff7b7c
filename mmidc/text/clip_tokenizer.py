"""open_clip's BPE tokenizer, the one every part uses: captions in the data
pipeline, the caption vocabulary, decoding, the retrieval inferencer.

``<start_of_text>`` = 49406, ``<end_of_text>`` = 49407, pad 0.
"""
from functools import lru_cache

__all__ = ['clip_tokenizer', 'CLIP_VOCAB_SIZE', 'SOT_ID', 'EOT_ID', 'PAD_ID']

CLIP_VOCAB_SIZE = 49408
SOT_ID = 49406
EOT_ID = 49407
PAD_ID = 0


@lru_cache(maxsize=1)
def clip_tokenizer():
    """The shared ``open_clip.tokenizer.SimpleTokenizer``, built once
    (reading the merges takes ~0.3 s)."""
    from open_clip.tokenizer import SimpleTokenizer
    return SimpleTokenizer()

"""mmidc_lab.benchmarks.vocab_speed: CLEVR-like captions and one timed step of a
small caption head with each vocabulary."""
import mmidc  # noqa: F401  (registries; `projects` is found from the clone root)
import projects.from_scratch  # noqa: F401  (registers the priced head)
from mmidc_lab.benchmarks.vocab_speed import clevr_like_captions, step_time
from mmidc.text import CaptionVocab, build_caption_vocab


def test_captions_and_step_time(one_thread):
    captions = clevr_like_captions()
    assert 'there is no change' in captions
    assert len(set(captions)) > 500
    small = build_caption_vocab(captions[:40])
    assert len(small) < len(CaptionVocab())
    for vocab in (small, CaptionVocab()):
        timing = step_time(vocab, batch_size=2, memory_tokens=4, caption_len=8,
                           hidden=32, layers=1, steps=2, warmup=0)
        assert timing['wall_s'] > 0 and timing['cpu_s'] > 0

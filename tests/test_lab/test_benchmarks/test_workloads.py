"""mmidc_lab.benchmarks.workloads on the tiny captioner: a synthetic batch in
the loader's format, both decoding loops giving the same tokens, the
optimizer wrappers."""
import pytest
import torch

from mmidc_lab.benchmarks.workloads import (build_benchmark_model, build_optim_wrapper,
                                        decode_timed, disable_dropout, input_size,
                                        normalised_inputs, synthetic_batch)
from mmidc.text import EOT_ID, SOT_ID
from tests.helpers.tiny_models import captioner_cfg, write_config

pytestmark = pytest.mark.usefixtures('one_thread')


@pytest.fixture(scope='module')
def model(tmp_path_factory):
    cfg = captioner_cfg()
    cfg['model']['head']['dropout'] = 0.1
    config = write_config(cfg, tmp_path_factory.mktemp('workloads') / 'tiny.py')
    torch.manual_seed(0)
    return build_benchmark_model(config).eval()


def test_synthetic_batch_is_what_the_loader_packs(model):
    batch = synthetic_batch(model, 3, context_length=16, caption_tokens=5)
    assert len(batch['inputs']) == 3
    assert batch['inputs'][0].dtype == torch.uint8
    assert tuple(batch['inputs'][0].shape) == (2, 3) + input_size(model)
    tokens = batch['data_samples'][0].text_tokens
    assert tokens.shape == (16, ) and tokens[0] == SOT_ID and tokens[6] == EOT_ID
    words = set(model.head.vocab.clip_ids.tolist())
    assert set(tokens[1:6].tolist()) <= words  # the head's own vocabulary
    assert torch.equal(batch['data_samples'][0].ref_tokens, tokens[None])
    assert synthetic_batch(model, 3, 16, 5)['inputs'][2].equal(batch['inputs'][2])  # seeded


def test_cached_and_reference_style_decoding_agree(model):
    inputs = normalised_inputs(model, synthetic_batch(model, 2))
    cached = decode_timed(model, inputs, steps=4)
    reference = decode_timed(model, inputs, steps=4, use_cache=False)
    assert cached['tokens'].shape == (2, 4)
    assert torch.equal(cached['tokens'], reference['tokens'])
    assert cached['total_s'] == pytest.approx(
        cached['vision_s'] + cached['caption_encoder_s'] + cached['decoder_s'])


def test_optim_wrappers_and_dropout(model):
    assert type(build_optim_wrapper(model)).__name__ == 'OptimWrapper'
    assert type(build_optim_wrapper(model, 'bf16')).__name__ == 'AutocastOptimWrapper'
    with pytest.raises(ValueError, match="'fp32' or 'bf16'"):
        build_optim_wrapper(model, 'fp16')
    disable_dropout(model)
    assert all(m.p == 0 for m in model.modules() if isinstance(m, torch.nn.Dropout))

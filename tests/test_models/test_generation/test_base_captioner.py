"""mmidc.models.generation.base_captioner: the one ``predict`` of both caption
families, on the toy decoder of the generation tests."""
import pytest
import torch
from mmpretrain.structures import DataSample

from mmidc.models.generation.base_captioner import BaseCaptioner
from tests.helpers.toy_decoder import A, B, MarkovDecoder


class ToyCaptioner(BaseCaptioner):

    def __init__(self, decode_cfg=None):
        self.caption_decoder = MarkovDecoder()
        self.set_decode_cfg(decode_cfg)

    def decoder_inputs(self, inputs):
        return inputs, {}


def test_predict_follows_decode_cfg_and_fills_the_samples():
    vocab = MarkovDecoder().vocab
    inputs = torch.zeros(2, 1, 1)
    greedy = ToyCaptioner().predict(inputs)  # new samples
    assert [ds.pred_caption for ds in greedy] == [vocab.decode(torch.tensor([A]))] * 2
    samples = [DataSample(metainfo=dict(pair_id=str(i))) for i in range(2)]
    beam = ToyCaptioner(dict(strategy='beam')).predict(inputs, samples)
    assert beam is samples
    assert [ds.pred_caption for ds in beam] == [vocab.decode(torch.tensor([B]))] * 2
    assert all(isinstance(ds.pred_score, float) for ds in beam)
    assert beam[0].pred_score == pytest.approx(torch.tensor(0.4).log().item() / 2)


def test_bad_decode_cfg_and_a_missing_part_are_named():
    with pytest.raises(KeyError, match='decode_cfg'):
        ToyCaptioner(dict(beams=2))

    class NoInputs(BaseCaptioner):
        caption_decoder = MarkovDecoder()
        decode_cfg = dict(strategy='greedy', max_length=None)

    with pytest.raises(NotImplementedError, match='NoInputs must implement'):
        NoInputs().predict(torch.zeros(1, 1, 1))


def test_both_caption_families_share_it():
    from mmidc.models import CLIP4IDCCaptioner, IDCPCLCaptioner
    for cls in (CLIP4IDCCaptioner, IDCPCLCaptioner):
        assert issubclass(cls, BaseCaptioner)
        assert 'predict' not in vars(cls) and 'generate' not in vars(cls)

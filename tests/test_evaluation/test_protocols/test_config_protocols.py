"""The remote-sensing configs report both literatures' protocols (CCExpert's
rs_words unprefixed, the RSICC lineage's rs_ids under rs_ids/) with their
data set's no-change sentences; save_best reads rs_words' CIDEr."""
import pytest
from mmengine.config import Config

from mmidc.evaluation import IDCMetric
from mmidc.runtime.data_root import apply_data_root

CONFIGS = {
    'configs/clip4idc/clip4idc-caption_vit-b32_levir-cc.py': 'levir_cc',
    'configs/clip4idc/clip4idc-caption_vit-b32_levir-mci.py': 'levir_mci',
    'projects/from_scratch/configs/clip4idc-caption_tiny_levir-cc.py':
    'levir_cc',
}
BASES = ('whu_cdc', 'second_cc', 'dubai_cc')


@pytest.mark.parametrize('path', sorted(CONFIGS))
def test_levir_configs_score_rs_words_and_rs_ids(path):
    cfg = Config.fromfile(path)
    apply_data_root(cfg, path)  # '{data_root}/LevirCCcaptions.json'
    for key in ('val_evaluator', 'test_evaluator'):
        ev = cfg[key]
        assert ev.tokenizer == 'rs_words' and ev.no_change_sentences == \
            CONFIGS[path]
        rs_ids = ev.extra_protocols.rs_ids
        assert (rs_ids.type, rs_ids.min_word_freq, rs_ids.word_freq_rule) \
            == ('RSIdsProtocol', 5, '>')
        assert rs_ids.vocab_ann_file == cfg.data_root + \
            '/LevirCCcaptions.json'
    assert cfg.default_hooks.checkpoint.save_best == 'CIDEr'
    metric = IDCMetric(**{k: v for k, v in cfg.val_evaluator.items()
                          if k != 'type'}, java=False, out_file_prefix=None)
    assert metric.scorer.tokenizer == 'rs_words'
    assert metric.extra_scorers['rs_ids'].tokenizer == 'rs_ids'


@pytest.mark.parametrize('name', BASES)
def test_other_rs_sets_decide_with_their_own_sentences(name):
    ev = Config.fromfile(f'configs/_base_/datasets/{name}.py').val_evaluator
    assert (ev.tokenizer, ev.no_change_sentences) == ('rs_words', name)

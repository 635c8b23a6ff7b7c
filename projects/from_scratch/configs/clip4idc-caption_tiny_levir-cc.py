# CLIP4IDC stage 2 on the LEVIR-CC layout on CPU, without CLIP weights, after
# clip4idc-adapt_tiny_levir-cc.py: the from-scratch recipe's tiny captioner
# (clip4idc-caption_tiny_my-pairs.py) reading LevirCCcaptions.json +
# images/{split}/{A,B}/ with LEVIRCCDataset (change and no-change pairs), its
# pair encoder from stage 1's best checkpoint. Its output vocabulary is the
# training captions', written once with `python
# tools/dataset_converters/build_vocab.py CONFIG`. docs/datasets.md has the
# commands on a generated tree.
_base_ = ['./clip4idc-caption_tiny_my-pairs.py']
data_root = 'data/levir_cc'
adapt_work_dir = 'work_dirs/clip4idc-adapt_tiny_levir-cc'
model = dict(init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
             head=dict(vocab='{vocab_file}'))
train_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='train',
    pipeline={{_base_.train_pipeline}}))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='val',
    pipeline={{_base_.test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='test',
    pipeline={{_base_.test_pipeline}}))
# Scored as the LEVIR-CC papers score (docs/evaluation.md), not with the PTB
# protocol of the your-pairs config: CCExpert's rs_words gives the unprefixed
# keys (save_best reads its CIDEr), the RSICC lineage's rs_ids (the words seen
# more than 5 times in every split of LevirCCcaptions.json) the rs_ids/ keys;
# both with LEVIR-CC's no-change decision accuracy (decision_acc).
val_evaluator = dict(
    _delete_=True, type='IDCMetric', tokenizer='rs_words',
    no_change_sentences='levir_cc',
    extra_protocols=dict(rs_ids=dict(
        type='RSIdsProtocol', min_word_freq=5, word_freq_rule='>',
        vocab_ann_file='{data_root}/LevirCCcaptions.json',
        vocab_field='tokens')))
test_evaluator = val_evaluator

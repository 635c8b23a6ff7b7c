# LEVIR-CC (Liu et al. 2022), read as distributed by LEVIRCCDataset:
# LevirCCcaptions.json + images/{train,val,test}/{A,B}/ (256x256, A before,
# B after; docs/datasets.md). Every caption of a pair is a reference; half
# the pairs are no-change pairs (change_type 'none', read from the
# captions, or from 'changeflag' with
# ann_file='LevirCCcaptions_v1.json').
_base_ = ['./image_pair.py']
data_root = 'data/levir_cc'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='val', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))
# Scored under both remote-sensing protocols (docs/evaluation.md), with S*m,
# the change / no-change subsets and the no-change decision accuracy:
# CCExpert's rs_words (lowercase, "." removed, split on whitespace) gives the
# unprefixed keys (CIDEr, S_m, decision_acc, ...: save_best reads its CIDEr);
# the RSICC lineage's rs_ids (RSICC, Chg2Cap, Change3D: the ids of the words
# seen more than 5 times among the tokens of every split of
# LevirCCcaptions.json, read without images, as RSICC's
# create_input_files.py counts them) gives the rs_ids/ keys (rs_ids/CIDEr...).
val_evaluator = dict(
    type='IDCMetric', tokenizer='rs_words', no_change_sentences='levir_cc',
    extra_protocols=dict(rs_ids=dict(
        type='RSIdsProtocol', min_word_freq=5, word_freq_rule='>',
        vocab_ann_file='{data_root}/LevirCCcaptions.json',
        vocab_field='tokens')))
test_evaluator = val_evaluator

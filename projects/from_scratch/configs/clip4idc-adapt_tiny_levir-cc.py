# CLIP4IDC stage 1 on the LEVIR-CC layout on CPU, without CLIP weights: the
# from-scratch recipe's tiny pair encoder (clip4idc-adapt_tiny_my-pairs.py)
# reading LevirCCcaptions.json + images/{split}/{A,B}/ with LEVIRCCDataset, at
# the tiny model's 96x144 (a square pair is stretched). As
# configs/clip4idc/clip4idc-adapt_vit-b32_levir-cc.py, change pairs only
# (with_no_change=False: LEVIR-CC's no-change sentences would be false
# negatives of each other). docs/datasets.md has the commands on a generated
# tree.
_base_ = ['./clip4idc-adapt_tiny_my-pairs.py']
data_root = 'data/levir_cc'
train_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='train',
    with_no_change=False, pipeline={{_base_.train_pipeline}}))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='val',
    with_no_change=False, pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='LEVIRCCDataset', data_root='{data_root}',
    split='test',
    with_no_change=False, pipeline={{_base_.retrieval_test_pipeline}}))

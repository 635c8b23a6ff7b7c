# LEVIR-MCI (Liu et al. 2024): LEVIR-CC's pairs and captions
# (LevirCCcaptions.json, images/{split}/{A,B}/) with change masks in
# images/{split}/label/, read by LEVIRMCIDataset (each pair carries its
# mask_path; docs/datasets.md). Loaders and scoring are LEVIR-CC's
# (./levir_cc.py), with LEVIR-MCI's reader and no-change sentences.
_base_ = ['./levir_cc.py']
data_root = 'data/levir_mci'

train_dataloader = dict(dataset=dict(type='LEVIRMCIDataset'))
val_dataloader = dict(dataset=dict(type='LEVIRMCIDataset'))
test_dataloader = dict(dataset=dict(type='LEVIRMCIDataset'))
val_evaluator = dict(
    no_change_sentences='levir_mci',
    extra_protocols=dict(rs_ids=dict(no_change_sentences='levir_mci')))
test_evaluator = val_evaluator

# Stage 1 on your own pairs (docs/new_dataset.md): data_root holds
# train.jsonl / val.jsonl / test.jsonl, one {"img1", "img2", "captions"} a line.
# The published CLIP4IDC code's recipe (the model and schedule bases say what
# that is; configs/clip4idc/README.md lists where mmidc differs).
_base_ = [
    '../_base_/datasets/image_pair.py',
    '../_base_/models/clip4idc-retriever_vit-b32.py',
    '../_base_/schedules/adaptation.py'
]
data_root = 'data/my_pairs'
# An epoch visits each pair once per reference caption, as the published
# code's epochs do (DefaultSampler: once per pair).
train_dataloader = dict(
    batch_size=128,
    sampler=dict(type='SampleSeedSampler', sampler=dict(
        type='RepeatByCaptionsSampler', shuffle=True)))
val_dataloader = dict(dataset=dict(
    pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader  # merged with the base's test.jsonl
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

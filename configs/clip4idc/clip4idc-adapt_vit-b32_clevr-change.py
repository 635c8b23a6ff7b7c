# CLIP4IDC stage 1 on CLEVR-Change, CLIP ViT-B/32: contrastive
# pair<->caption adaptation, 12 epochs, batch 128, with the published
# CLIP4IDC code's recipe (the model and schedule bases say what that is;
# README.md lists where mmidc differs).
# Model selection on val by rsum (sum of the six recalls): MMEngine saves
# the best epoch as best_rsum_epoch_N.pth in the work dir, which the
# captioning config loads (model.init_backbone_from).
_base_ = [
    '../_base_/datasets/clevr_change.py',
    '../_base_/models/clip4idc-retriever_vit-b32.py',
    '../_base_/schedules/adaptation.py'
]
# Change pairs only: the no-change pairs share a few sentences ("nothing has
# changed"), which as contrastive pairs are false negatives of each other.
# With probability 0.5 the before image is the scene's distractor render
# (viewpoint/lighting changed, same change caption), as in the published
# code; prob=0 turns it off.
train_pipeline = [
    dict(type='RandomDistractorBefore', prob=0.5),
    {{_base_.load_pair}},
    dict(type='ResizePair', size={{_base_.image_size}}),
    dict(type='TokenizeCaptions', context_length={{_base_.context_length}},
         mode='random'),
    dict(type='PackIDCInputs'),
]
# batch_size is per process: 128 in one process is the paper's batch; with
# tools/dist_train.sh on 2 GPUs use train_dataloader.batch_size=64 (the
# contrastive head gathers the batch across ranks). An epoch visits each
# pair once per reference caption (RepeatByCaptionsSampler), as the published
# code's epochs do (DefaultSampler: once per pair, an epoch several times
# shorter). The last, incomplete batch is dropped, as in the published code.
train_dataloader = dict(
    batch_size=128, drop_last=True,
    sampler=dict(type='SampleSeedSampler', sampler=dict(
        type='RepeatByCaptionsSampler', shuffle=True)),
    dataset=dict(with_no_change=False, with_distractor_path=True,
                 pipeline=train_pipeline))
# Retrieval evaluation: every caption of a pair is embedded.
val_dataloader = dict(dataset=dict(
    with_no_change=False, pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader  # merged with the base's test split
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

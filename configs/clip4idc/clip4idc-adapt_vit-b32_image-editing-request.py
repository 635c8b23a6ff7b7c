# CLIP4IDC stage 1 on Image-Editing-Request, CLIP ViT-B/32: contrastive
# pair<->caption adaptation, batch 128, 12 epochs as on CLEVR-Change (the
# published code has no Image-Editing-Request scripts), with the published
# CLIP4IDC code's recipe (the model and schedule bases say what that is;
# README.md lists where mmidc differs).
# Model selection on val by rsum (sum of the six recalls): MMEngine saves
# the best epoch as best_rsum_epoch_N.pth in the work dir, which the
# captioning config loads (model.init_backbone_from).
_base_ = [
    '../_base_/datasets/image_editing_request.py',
    '../_base_/models/clip4idc-retriever_vit-b32.py',
    '../_base_/schedules/adaptation.py'
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
        type='RepeatByCaptionsSampler', shuffle=True)))
# Retrieval evaluation: every caption of a pair is embedded.
val_dataloader = dict(dataset=dict(
    pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader  # merged with the base's test split
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

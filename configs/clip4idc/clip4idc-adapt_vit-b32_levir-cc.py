# CLIP4IDC stage 1 on LEVIR-CC, CLIP ViT-B/32: contrastive pair<->caption
# adaptation, batch 128, 12 epochs (the paper's CLEVR-Change schedule; not
# tuned on LEVIR-CC), with the published CLIP4IDC code's recipe (the model
# and schedule bases say what that is; README.md lists where mmidc differs).
# LEVIR-CC's 256x256 pairs are resized to CLIP's 224x224 (the whole scene
# kept, no crop). Model selection on val by rsum: MMEngine saves the best
# epoch as best_rsum_epoch_N.pth, which the captioning config loads.
_base_ = [
    '../_base_/datasets/levir_cc.py',
    '../_base_/models/clip4idc-retriever_vit-b32.py',
    '../_base_/schedules/adaptation.py'
]
# Change pairs only (with_no_change=False), as on CLEVR-Change: half of
# LEVIR-CC's pairs are no-change pairs, all captioned from the same five
# sentences ("the scene is the same as before", ...), so in a contrastive
# batch of 128 some 64 no-change pairs would be one another's false
# negatives, and text->pair retrieval of those sentences is undefined. The
# captioning stage keeps them: it learns when to say there is no change.
# An epoch visits each pair once per reference caption
# (RepeatByCaptionsSampler), as the published code's epochs do; the last,
# incomplete batch is dropped, as in the published code. batch_size is per
# process: with tools/dist_train.sh on 2 GPUs use 64.
train_dataloader = dict(
    batch_size=128, drop_last=True,
    sampler=dict(type='SampleSeedSampler', sampler=dict(
        type='RepeatByCaptionsSampler', shuffle=True)),
    dataset=dict(with_no_change=False))
train_cfg = dict(max_epochs=12)
# Retrieval evaluation on the change pairs: every caption of a pair is
# embedded.
val_dataloader = dict(dataset=dict(
    with_no_change=False, pipeline={{_base_.retrieval_test_pipeline}}))
test_dataloader = val_dataloader  # merged with the base's test split
val_evaluator = dict(_delete_=True, type='RetrievalMetric')
test_evaluator = val_evaluator

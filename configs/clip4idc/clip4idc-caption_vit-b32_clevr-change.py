# CLIP4IDC stage 2 on CLEVR-Change, CLIP ViT-B/32: the adapted pair
# encoder feeds the published code's 3+3-layer captioning decoder, at most
# 50 epochs, with the published CLIP4IDC code's recipe (the model and
# schedule bases say what that is; README.md lists where mmidc differs).
# Model selection on val by CIDEr(-D); the test split only via tools/test.py.
_base_ = [
    '../_base_/datasets/clevr_change.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
data_root = 'data/clevr_change'
# Every batch holds 16 scenes, each with its change pair and its no-change
# pair (PairedSceneSampler): the published code's batch of 16, which it runs
# as two forward passes, (before, change) and (before, distractor), summing
# their mean losses (PairedSceneCrossEntropyLoss below).
# DefaultSampler with batch_size=16 shuffles the pairs independently instead
# (then set head.loss.type='CaptionCrossEntropyLoss': one mean over the
# batch).
# The last, incomplete batch of an epoch is dropped, as in the published code.
train_dataloader = dict(
    batch_size=32, drop_last=True,
    sampler=dict(type='SampleSeedSampler', sampler=dict(
        type='PairedSceneSampler', shuffle=True)))
# MMEngine's auto_scale_lr counts pairs per step: the base batch is 32.
auto_scale_lr = dict(base_batch_size=32)
# The adaptation run (tools/train.py's default work dir for its config).
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b32_clevr-change'
model = dict(
    # Stage 1's best checkpoint. MMEngine names it after its epoch
    # (best_rsum_epoch_N.pth), so this is a glob: the newest match is loaded
    # when the model is built; no match is an error naming the pattern.
    # Relative to the working directory. Not load_from: see README.md.
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    # The decoder's frozen word embeddings come from the same checkpoint's
    # text encoder (CLIP's, kept frozen by stage 1), as in the published code.
    # To predict only the tokens of the training captions (CLIP's rows of
    # them; a faster head step), write their vocabulary once with
    # tools/dataset_converters/build_vocab.py CONFIG and add
    #   vocab='{vocab_file}'
    head=dict(pretrained='{adapt_work_dir}/best_rsum_*.pth',
              loss=dict(type='PairedSceneCrossEntropyLoss')))

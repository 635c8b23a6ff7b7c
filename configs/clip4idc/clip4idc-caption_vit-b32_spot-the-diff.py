# CLIP4IDC stage 2 on Spot-the-Diff, CLIP ViT-B/32: the adapted pair
# encoder feeds a 3+3-layer captioning Transformer trained from scratch,
# at most 50 epochs, batch 16, with the published CLIP4IDC code's recipe
# (the model and schedule bases say what that is; README.md lists where
# mmidc differs).
# Model selection on val by CIDEr(-D); the test split only via tools/test.py.
_base_ = [
    '../_base_/datasets/spot_the_diff.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
data_root = 'data/spot_the_diff'
# The last, incomplete batch of an epoch is dropped, as in the published code.
train_dataloader = dict(batch_size=16, drop_last=True)
# The adaptation run (tools/train.py's default work dir for its config).
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b32_spot-the-diff'
model = dict(
    # Stage 1's best checkpoint. MMEngine names it after its epoch
    # (best_rsum_epoch_N.pth), so this is a glob: the newest match is loaded
    # when the model is built; no match is an error naming the pattern.
    # Relative to the working directory. Not load_from: see README.md.
    init_backbone_from=adapt_work_dir + '/best_rsum_*.pth',
    # Output vocabulary restricted to the tokens of the training captions
    # (the annotations are read at build; their tokenisation is cached in
    # cache_file, rebuilt when the captions change).
    head=dict(vocab=dict(
        _delete_=True,
        captions_from=dict(
            type='SpotTheDiffDataset', data_root=data_root, split='train'),
        cache_file='work_dirs/caption_vocab/spot-the-diff_train.json')))

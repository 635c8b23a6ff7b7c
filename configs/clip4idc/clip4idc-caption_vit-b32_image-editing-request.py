# CLIP4IDC stage 2 on Image-Editing-Request, CLIP ViT-B/32: the adapted pair
# encoder feeds the published code's 3+3-layer captioning decoder, at most
# 50 epochs, batch 16, with the published CLIP4IDC code's recipe (the model
# and schedule bases say what that is; README.md lists where mmidc differs).
# Model selection on val by CIDEr(-D); the test split only via tools/test.py.
_base_ = [
    '../_base_/datasets/image_editing_request.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
data_root = 'data/image_editing_request'
# The last, incomplete batch of an epoch is dropped, as in the published code.
train_dataloader = dict(batch_size=16, drop_last=True)
# The adaptation run (tools/train.py's default work dir for its config).
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b32_image-editing-request'
model = dict(
    # Stage 1's best checkpoint. MMEngine names it after its epoch
    # (best_rsum_epoch_N.pth), so this is a glob: the newest match is loaded
    # when the model is built; no match is an error naming the pattern.
    # Relative to the working directory. Not load_from: see README.md.
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth',
    # The decoder's frozen word embeddings come from the same checkpoint's
    # text encoder (the published code's setting outside Spot-the-Diff).
    # To predict only the tokens of the training captions (CLIP's rows of
    # them; a faster head step), write their vocabulary once with
    # tools/dataset_converters/build_vocab.py CONFIG and add
    #   vocab='{vocab_file}'
    head=dict(pretrained='{adapt_work_dir}/best_rsum_*.pth'))

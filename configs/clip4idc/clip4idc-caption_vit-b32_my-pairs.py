# Stage 2 on your own pairs (docs/new_dataset.md), after
# clip4idc-adapt_vit-b32_my-pairs.py has run. The published CLIP4IDC code's
# recipe (the model and schedule bases say what that is;
# configs/clip4idc/README.md lists where mmidc differs).
_base_ = [
    '../_base_/datasets/image_pair.py',
    '../_base_/models/clip4idc-captioner_vit-b32.py',
    '../_base_/schedules/captioning.py'
]
data_root = 'data/my_pairs'
adapt_work_dir = 'work_dirs/clip4idc-adapt_vit-b32_my-pairs'
best_adapted = '{adapt_work_dir}/best_rsum_*.pth'  # newest match
model = dict(
    init_backbone_from=best_adapted,
    # the decoder's frozen word embeddings: CLIP's, from the same checkpoint
    head=dict(pretrained=best_adapted))
# To predict only the tokens of your training captions (a faster head step),
# write their vocabulary once with
#   python tools/dataset_converters/build_vocab.py CONFIG
# and add
# model = dict(head=dict(vocab='{data_root}/caption_vocab_train.json'))

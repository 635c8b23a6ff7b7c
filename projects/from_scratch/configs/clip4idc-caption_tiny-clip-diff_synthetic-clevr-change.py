# Captioning on the tiny CLIP's pair encoder with the project's caption side:
# the adapted encoder of clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change
# (the tiny CLIP, 3 intra + 1 inter blocks, DifferenceSegment), then the
# recipe's ChangeSummaryNeck, BagOfWordsHead word prior and pre-LN
# ScratchCaptionHead, AdamW, batch 16, 5 epochs (this file's base).
# Why not the paper's caption stage: at this scale TransformerCaptionHead with the
# published schedule writes the no-change sentence for every pair, with or
# without adaptation, a difference segment, a trainable encoder or word
# embedding (docs/tiny_clip.md, "Where the collapse sits").
# Without adaptation: --cfg-options model.init_backbone_from=None (the
# encoder then starts from the tiny CLIP file).
_base_ = ['./clip4idc-caption_tiny_synthetic-clevr-change.py']
tiny_clip = 'work_dirs/tiny_clip/mmidc-tiny-clip.safetensors'
adapt_work_dir = ('work_dirs/'
                  'clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change')
model = dict(
    backbone=dict(
        _delete_=True, type='CLIP4IDCBackbone', arch='mmidc-tiny-clip',
        img_size=None, num_inter_layers=1, pretrained=tiny_clip,
        extra_segments=[dict(type='DifferenceSegment')]),
    init_backbone_from='{adapt_work_dir}/best_rsum_*.pth')

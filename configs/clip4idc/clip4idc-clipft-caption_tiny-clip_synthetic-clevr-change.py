# Ablation "CLIP-FT" (paper, table 5) in miniature: each image encoded alone
# by the tiny CLIP's 4 blocks (no inter-image block), no adaptation, the
# paper's caption stage on the two images' tokens.
_base_ = ['./clip4idc-noadapt-caption_tiny-clip_synthetic-clevr-change.py']
model = dict(backbone=dict(num_inter_layers=0))

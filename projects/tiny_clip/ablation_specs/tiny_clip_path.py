# Rows for `python -m mmidc_lab.ablations --spec`: CLIP4IDC's ablations on
# the pretrained tiny CLIP (python -m projects.tiny_clip.pretrain), the paper's
# adaptation stage with a difference segment, then the from-scratch
# project's caption side (docs/tiny_clip.md says why).
title = 'CLIP4IDC ablations in miniature: the pretrained tiny CLIP'
subject = ('The tiny CLIP pretrained by `python -m '
           'projects.tiny_clip.pretrain --epochs 8`, '
           'adapted by the paper\'s recipe with a difference segment and '
           'captioned by the from-scratch project\'s caption side '
           '(`projects/from_scratch/configs/*_tiny-clip-diff_*`, '
           '[tiny_clip.md](tiny_clip.md))')
configs = dict(
    adapt_config='projects/from_scratch/configs/'
    'clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change.py',
    caption_config='projects/from_scratch/configs/'
    'clip4idc-caption_tiny-clip-diff_synthetic-clevr-change.py')
alone = ('model.backbone.num_inter_layers=0', 'model.backbone.extra_segments=[]')
rows = [
    dict(name='full', adapt=True, **configs,
         label='(a) adaptation, then captioning (3 intra / 1 inter)'),
    dict(name='no-adapt', adapt=False, **configs,
         label='(b) captioning without adaptation (3/1), from the tiny CLIP'),
    dict(name='clip-ft', adapt=False, caption_options=alone, **configs,
         label='(c) CLIP-FT: each image encoded alone (4/0, no difference '
         'segment), no adaptation'),
    dict(name='split-2-2', adapt=True, **configs,
         adapt_options=('model.backbone.num_inter_layers=2', ),
         caption_options=('model.backbone.num_inter_layers=2', ),
         label='(d) 2 intra / 2 inter, with adaptation'),
    dict(name='split-4-0', adapt=True, **configs,
         adapt_options=('model.backbone.num_inter_layers=0', ),
         caption_options=('model.backbone.num_inter_layers=0', ),
         label='(d) 4 intra / 0 inter ("all intra"), with adaptation'),
]

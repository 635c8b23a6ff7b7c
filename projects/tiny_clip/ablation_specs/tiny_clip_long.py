# Rows for `python -m mmidc_lab.ablations --spec`: the rows of
# tiny_clip_path.py (same configs, recipe and schedules) on a tiny CLIP
# pretrained three times longer, on a three times larger corpus:
#   python -m projects.tiny_clip.pretrain --work-dir work_dirs/tiny_clip_n24k \
#       --num-images 24000 --epochs 8
# (192,000 samples against 64,000; docs/tiny_clip.md, "A longer
# pre-training").
title = ('CLIP4IDC ablations in miniature: the tiny CLIP pretrained on '
         '24,000 images')
subject = ('The tiny CLIP pretrained by `python -m '
           'projects.tiny_clip.pretrain --num-images 24000 --epochs 8` '
           '(192,000 samples), adapted by the '
           'paper\'s recipe with a difference segment and captioned by the '
           'from-scratch project\'s caption side '
           '(`projects/from_scratch/configs/*_tiny-clip-diff_*`, '
           '[tiny_clip.md](tiny_clip.md))')
tiny_clip = 'work_dirs/tiny_clip_n24k/mmidc-tiny-clip.safetensors'
configs = dict(
    adapt_config='projects/from_scratch/configs/'
    'clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change.py',
    caption_config='projects/from_scratch/configs/'
    'clip4idc-caption_tiny-clip-diff_synthetic-clevr-change.py')
adapt_clip = (f'model.pretrained={tiny_clip}', )
# with adaptation the captioner's encoder starts from the adapted
# checkpoint; without, from this file
caption_clip = (f'model.backbone.pretrained={tiny_clip}', )
alone = ('model.backbone.num_inter_layers=0', 'model.backbone.extra_segments=[]')
rows = [
    dict(name='full', adapt=True, **configs, adapt_options=adapt_clip,
         caption_options=caption_clip,
         label='(a) adaptation, then captioning (3 intra / 1 inter)'),
    dict(name='no-adapt', adapt=False, **configs, caption_options=caption_clip,
         label='(b) captioning without adaptation (3/1), from the tiny CLIP'),
    dict(name='clip-ft', adapt=False, **configs,
         caption_options=caption_clip + alone,
         label='(c) CLIP-FT: each image encoded alone (4/0, no difference '
         'segment), no adaptation'),
    dict(name='split-4-0', adapt=True, **configs,
         adapt_options=adapt_clip + ('model.backbone.num_inter_layers=0', ),
         caption_options=caption_clip + (
             'model.backbone.num_inter_layers=0', ),
         label='(d) 4 intra / 0 inter ("all intra"), with adaptation'),
]

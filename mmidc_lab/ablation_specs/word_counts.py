# Rows for python -m mmidc_lab.ablations --spec: the caption side's word
# prior counted (`BagOfWordCountsHead`: a word already written gets the
# belief that the captions hold it once more) instead of `BagOfWordsHead`'s
# (the same belief at every step), on the from-scratch recipe and on the
# tiny-CLIP CLIP-FT row (docs/from_scratch.md says why), beside the recipe
# itself run on the same machine.
title = 'The counted word prior in miniature'
subject = ('The from-scratch recipe as it is, and the recipe and the '
           'tiny-CLIP CLIP-FT row ([ablations_tiny_clip.md]'
           '(ablations_tiny_clip.md)) with the caption side\'s '
           '`BagOfWordsHead` replaced by `BagOfWordCountsHead` (counts up to '
           '3)')
counted = ('model.aux_head.type=BagOfWordCountsHead', )
rows = [
    dict(name='recipe', adapt=True,
         label='the from-scratch recipe (`BagOfWordsHead`)'),
    dict(name='recipe-counts', adapt=True, caption_options=counted,
         label='the from-scratch recipe, counted word prior'),
    dict(name='clip-ft-counts', adapt=False,
         adapt_config='projects/from_scratch/configs/'
         'clip4idc-adapt_tiny-clip-diff_synthetic-clevr-change.py',
         caption_config='projects/from_scratch/configs/'
         'clip4idc-caption_tiny-clip-diff_synthetic-clevr-change.py',
         caption_options=('model.backbone.num_inter_layers=0',
                          'model.backbone.extra_segments=[]', *counted),
         label='tiny-CLIP CLIP-FT (4/0, no difference segment, no '
         'adaptation), counted word prior'),
]

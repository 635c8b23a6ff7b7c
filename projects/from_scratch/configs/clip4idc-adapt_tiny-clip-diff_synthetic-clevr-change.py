# The paper's adaptation in miniature
# (configs/clip4idc/clip4idc-adapt_tiny-clip_synthetic-clevr-change.py: the
# tiny CLIP pretrained by python -m projects.tiny_clip.pretrain, the published recipe)
# with one registered part added: the project's DifferenceSegment (the
# intra blocks' after - before tokens enter the inter block). At this scale
# the inter attention alone does not learn to compare the two images (the
# change-type probe stays at the class prior; with the segment it does not),
# docs/tiny_clip.md.
_base_ = ['../../../configs/clip4idc/clip4idc-adapt_tiny-clip_synthetic-clevr-change.py']
custom_imports = dict(imports=['mmidc', 'projects.from_scratch'],
                      allow_failed_imports=False)
model = dict(backbone=dict(extra_segments=[dict(type='DifferenceSegment')]))

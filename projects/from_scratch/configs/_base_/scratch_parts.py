# The components that let CLIP4IDC's tiny model learn from random weights on
# a CPU budget (docs/from_scratch.md explains what each one addresses).
# The recipe's configs compose them onto the paper's tiny architecture.

# Pair encoder: a convolutional stem instead of the single patch conv (the
# locality prior a random-init ViT lacks), and a third token segment, the
# difference of the two images' intra outputs plus an aligned difference of
# the stem's stride-4 maps (each position against its best match within one
# 4 px cell of the other image, both ways, so that the camera move between
# the images does not read as a change).
scratch_backbone = dict(
    patch_embed=dict(type='ConvStem', channels=(32, 64, 128)),
    extra_segments=[
        dict(type='DifferenceSegment', aligned=True, alignment_stage=1)
    ])
# Adaptation: the pair vector is the channel-wise max of all output tokens
# (the CLS tokens of a random-init ViT hardly depend on the input, and the
# mean dilutes the one changed object).
scratch_pair_pooling = dict(type='PairPooling', mode='max')
# Captioning: summary tokens (each segment's max and two change-attention
# readouts, a before and an after token of the changed position) join the
# caption head's memory and feed a bag-of-words head whose targets are each
# word's share of the pair's references; its log-belief is added to the
# decoder's next-word logits (word prior), so the captions name the
# attributes it read.
scratch_neck = dict(type='ChangeSummaryNeck', change_tokens=2)
scratch_aux_head = dict(type='BagOfWordsHead', loss_weight=10.0,
                        word_prior=True)

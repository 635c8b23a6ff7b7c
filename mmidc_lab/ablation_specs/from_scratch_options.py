# Rows for python -m mmidc_lab.ablations --spec: the from-scratch recipe
# with and without one of its options, each chosen on val (the table's "val"
# columns); the recipe's runs are shared with the built-in rows.
title = "The from-scratch recipe's options in miniature"
rows = [
    dict(name='recipe', adapt=True,
         label='the recipe (word prior on)'),
    dict(name='no-prior', adapt=True,
         caption_options=('model.aux_head.word_prior=False', ),
         label='without the word prior'),
]

"""Hand-made CLEVR-Change-like pairs with known change types, and sentences
for the PTB tokenizer's rules."""
# (pair_id, change_type, prediction, references): CLEVR-Change-like pairs with
# known types; no 'drop' pair, so 'drop/...' keys must be absent.
PAIRS = [
    ('000001.png', 'color', 'the red cube changed to blue',
     ['the red cube turned blue', 'the red cube became blue',
      'the red block changed to blue']),
    ('000002.png', 'color', 'the small ball turned yellow',
     ['the small green ball became yellow', 'the tiny sphere turned yellow']),
    ('000003.png', 'color', 'the big cylinder changed to gray',
     ['the large purple cylinder changed to gray']),
    ('000004.png', 'material', 'the metal cube became rubber',
     ['the shiny cube turned matte', 'the metallic block became rubber']),
    ('000005.png', 'material', 'the rubber ball turned shiny',
     ['the matte sphere became metallic', 'the rubber ball turned metal']),
    ('000006.png', 'add', 'a red sphere has been added',
     ['a red ball has appeared', 'a red sphere has been newly placed']),
    ('000007.png', 'add', 'a cyan cube has appeared behind the cylinder',
     ['a cyan block has been added behind the big cylinder']),
    ('000008.png', 'move', 'the brown cylinder moved',
     ['the brown cylinder changed its location',
      'the brown object is in a different location']),
    ('000009.png', 'move', 'the sphere is in a different location',
     ['the small blue sphere moved', 'the tiny ball changed its location']),
    ('000001.png_n', 'none', 'there is no change',
     ['no change was made', 'there is no change', 'nothing has changed']),
    ('000002.png_n', 'none', 'the scene remains the same',
     ['the two scenes seem identical', 'the scene remains the same']),
    ('000003.png_n', 'none', 'no change has occurred',
     ['there is no difference', 'nothing was modified']),
    ('extra_1', 'unknown', 'the man in the car is gone.',
     ['The man in the car is gone.', 'a car has left the lot']),
]


def data_samples(pairs=PAIRS):
    """Data samples as MMEngine passes them to a metric (dicts)."""
    return [
        dict(pair_id=pid, change_type=ctype, pred_caption=pred,
             gt_captions=list(refs)) for pid, ctype, pred, refs in pairs
    ]


def records(pairs=PAIRS):
    return [
        dict(pair_id=pid, prediction=pred, references=list(refs),
             change_type=ctype) for pid, ctype, pred, refs in pairs
    ]


# Sentences for PTB's rules (clitics, quotes, brackets, numbers, symbols),
# with what PTB + coco-caption's punctuation removal make of them.
PTB_CASES = {
    'The small brown matte cube changed to green.':
        'the small brown matte cube changed to green',
    "the cube's color is red, isn't it?": "the cube 's color is red is n't it",
    "Mr. Smith's car (the blue one) moved left.":
        "mr. smith 's car -lrb- the blue one -rrb- moved left",
    "it's 3.5 m away; don't move": "it 's 3.5 m away do n't move",
    'the "red" ball': 'the red ball',
    "the 'red' ball": 'the red ball',
    'cars/trucks are gone...': 'cars/trucks are gone',
    "we're here, they've gone, I'll stay, he'd go, I'm in":
        "we 're here they 've gone i 'll stay he 'd go i 'm in",
    'cannot gonna wanna': 'can not gon na wan na',
    'the man in the $5 shirt & hat': 'the man in the $ 5 shirt & hat',
    'e.g. the U.S. car': 'e.g. the u.s. car',
    '50% of a 1,000 cubes': '50 % of a 1,000 cubes',
    'the 2nd car, #1 car': 'the 2nd car # 1 car',
    'the {a} [b]': 'the -lcb- a -rcb- -lsb- b -rsb-',
    'a well-known car-park, done.Then a b-': 'a well-known car-park done.then a b',
    'what?! -- ok': 'what ?! ok',
}

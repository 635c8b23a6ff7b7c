"""The caption heads' next-token accuracy (``BaseCaptionHead``) is computed
without a masked index (which waits for the GPU): it must equal the masked
mean."""
import torch

from mmidc.models.heads import TransformerCaptionHead


def test_accuracy_equals_the_masked_mean():
    head = TransformerCaptionHead(memory_dim=16, hidden=16, num_heads=2,
                           num_encoder_layers=1, num_decoder_layers=1,
                           max_length=8, vocab=['the cube moved left',
                                                'a red ball appeared'],
                           freeze_word_embed=False, freeze_word_pos=False)
    gen = torch.Generator().manual_seed(0)
    V = len(head.vocab)
    tokens = head.vocab.to_clip(torch.randint(3, V, (6, 8), generator=gen))
    tokens[:, 0] = head.vocab.to_clip(torch.tensor([head.vocab.sot_id]))
    tokens[2, 4:] = 0  # padding
    tokens[5, 1:] = 0
    logits = torch.randn(6, 7, V, generator=gen)
    targets = head.vocab.to_compact(tokens[:, 1:])
    logits[0, 0, targets[0, 0]] = 50.0  # a few right guesses
    logits[3, 2, targets[3, 2]] = 50.0
    valid = targets != head.vocab.pad_id
    expected = (logits.argmax(-1) == targets)[valid].float().mean()
    accuracy = head.loss_from_logits(logits, tokens)['accuracy']
    assert accuracy.item() == expected.item() and 0 < accuracy < 1
    all_pad = tokens.clone()
    all_pad[:, 1:] = 0
    assert head.loss_from_logits(logits, all_pad)['accuracy'].isnan()  # as before

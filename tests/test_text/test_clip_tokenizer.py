"""One shared open_clip BPE tokenizer, and its special ids."""
from mmidc.text.clip_tokenizer import CLIP_VOCAB_SIZE, EOT_ID, SOT_ID, clip_tokenizer


def test_one_instance_and_its_special_ids():
    tokenizer = clip_tokenizer()
    assert clip_tokenizer() is tokenizer
    assert tokenizer.encoder['<start_of_text>'] == SOT_ID
    assert tokenizer.encoder['<end_of_text>'] == EOT_ID
    assert len(tokenizer.encoder) == CLIP_VOCAB_SIZE
    tokens = tokenizer(['the red cube'], context_length=8)[0].tolist()
    assert tokens[0] == SOT_ID and tokens[4] == EOT_ID and tokens[5:] == [0, 0, 0]

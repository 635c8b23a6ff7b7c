"""IDCInferencer: captions of one pair or a batch, greedy or beam (the
input checks and batching of every inferencer: test_base_pair_inferencer.py)."""
import numpy as np
import pytest
from PIL import Image

from mmidc.apis import IDCInferencer, IDCRetrievalInferencer
from tests.helpers.tiny_models import square_pair


def test_caption_one_pair_from_paths_pil_and_arrays(captioner, pair_files):
    result = captioner(*pair_files)
    assert set(result) == {'caption', 'score'}
    assert isinstance(result['caption'], str) and result['caption']
    assert isinstance(result['score'], float) and result['score'] <= 0
    from_pil = captioner(*(Image.open(p) for p in pair_files))
    from_arrays = captioner(*(np.asarray(Image.open(p)) for p in pair_files))
    assert from_pil == from_arrays == result


def test_batches_match_single_pairs(captioner):
    before, after, _ = square_pair()
    pairs = [(before, after), (after, before), (before, before)]
    singles = [captioner(a, b) for a, b in pairs]
    batched = captioner(pairs, batch_size=2)
    assert [r['caption'] for r in batched] == [r['caption'] for r in singles]
    assert np.allclose([r['score'] for r in batched],
                       [r['score'] for r in singles], atol=1e-4)
    with pytest.raises(TypeError, match='list of'):
        captioner([before, after])


def test_greedy_and_beam(captioner):
    before, after, _ = square_pair()
    greedy = captioner(before, after, strategy='greedy')
    beam = captioner(before, after, strategy='beam', beam_size=3)
    assert isinstance(beam['caption'], str)
    assert captioner.model.decode_cfg['strategy'] == 'greedy'  # unchanged
    beam_inferencer_default = IDCInferencer(
        captioner.config, None, device='cpu', strategy='beam', beam_size=2)
    assert beam_inferencer_default.decode_options == dict(strategy='beam',
                                                          beam_size=2)
    assert beam_inferencer_default.model.decode_cfg == captioner.model.decode_cfg
    with pytest.raises(ValueError, match='beam_size'):
        captioner(before, after, strategy='beam', beam_size=0)
    with pytest.raises(ValueError, match='strategy'):
        captioner(before, after, strategy='sampling')
    assert greedy['caption']


def test_options_reach_predict_and_the_model_is_not_changed(captioner):
    """The inferencer's captions are the model's own predict with the
    options, on the preprocessed batch; decode_cfg stays as it was."""
    import torch
    from mmengine.dataset import pseudo_collate
    before, after, _ = square_pair()
    saved = dict(captioner.model.decode_cfg)
    sample = captioner.prepare_pair(before, after)
    data = captioner.model.data_preprocessor(pseudo_collate([sample]), False)
    for options in (dict(), dict(strategy='beam', beam_size=3),
                    dict(strategy='greedy')):
        with torch.no_grad():
            expected = captioner.model.predict(
                data['inputs'], None, **dict(captioner.decode_options, **options))[0]
        result = captioner(before, after, **options)
        assert result == {'caption': expected.pred_caption,
                          'score': float(expected.pred_score)}
        assert captioner.model.decode_cfg == saved


def test_wrong_stage_and_config_errors(captioner_files, retriever_files, tmp_path):
    with pytest.raises(TypeError, match='IDCRetrievalInferencer'):
        IDCInferencer(*retriever_files, device='cpu')
    with pytest.raises(TypeError, match='adaptation-stage'):
        IDCRetrievalInferencer(*captioner_files, device='cpu')
    with pytest.raises(FileNotFoundError, match='missing.py'):
        IDCInferencer(str(tmp_path / 'missing.py'), device='cpu')
    with pytest.raises(FileNotFoundError, match='missing.pth'):
        IDCInferencer(captioner_files[0], str(tmp_path / 'missing.pth'))


def test_unsafe_checkpoint_is_refused(captioner_files, tmp_path):
    import torch

    class Evil:
        def __reduce__(self):
            return (print, ('executed',))

    bad = tmp_path / 'evil.pth'
    torch.save({'state_dict': {}, 'payload': Evil()}, bad)
    with pytest.raises(ValueError, match='weights_only=True'):
        IDCInferencer(captioner_files[0], str(bad), device='cpu')


def test_attention_png_titled_with_caption(captioner, pair_files, tmp_path):
    out = tmp_path / 'att.png'
    figure = captioner.visualize_attention(*pair_files, out)
    assert out.is_file() and figure.ndim == 3


@pytest.mark.cuda
def test_inferencer_on_cuda(captioner_files, pair_files):
    """The captioner on the GPU gives the CPU's captions."""
    gpu = IDCInferencer(*captioner_files, device='cuda')
    assert next(gpu.model.parameters()).is_cuda
    cpu = IDCInferencer(*captioner_files, device='cpu')
    before, after, _ = square_pair()
    pairs = [(before, after), (after, before), tuple(pair_files)]
    on_gpu, on_cpu = gpu(pairs, batch_size=2), cpu(pairs, batch_size=2)
    assert [r['caption'] for r in on_gpu] == [r['caption'] for r in on_cpu]
    assert np.allclose([r['score'] for r in on_gpu], [r['score'] for r in on_cpu],
                       atol=1e-3)


def test_list_results_carry_pair_ids_and_paths(captioner, pair_files):
    """A list's results say which pair they are: its id (default: its
    position) and, for pairs given as paths, the two paths."""
    before, after, _ = square_pair()
    results = captioner([pair_files, (before, after)], pair_ids=['p1', 'p2'],
                        workers=0)
    assert results[0]['pair_id'] == 'p1'
    assert (results[0]['img1'], results[0]['img2']) == pair_files
    assert results[1]['pair_id'] == 'p2' and 'img1' not in results[1]
    assert [r['pair_id'] for r in captioner([(before, after)] * 3, workers=0)] \
        == [0, 1, 2]
    assert set(captioner(before, after)) == {'caption', 'score'}  # one pair


def _by_hand(captioner, pairs, captions):
    """Sum of the log-softmax of the head's teacher-forced logits (one pass,
    as in training) at each caption token, pad/start/unk masked as the
    search masks them."""
    import torch

    from mmidc.text import clip_tokenizer
    head = captioner.model.head
    (batch, ) = captioner.preprocess(pairs, len(pairs), workers=0)
    inputs = captioner.batch_inputs(batch)['inputs']
    memory, kwargs = captioner.model.decoder_inputs(inputs)
    kwargs.pop('logits_processors', None)
    tokens = clip_tokenizer()(captions, head.max_length)  # [B, L]
    with torch.no_grad():
        logits = head(memory, tokens, **kwargs).float()  # [B, L-1, V]
    banned = [head.vocab.pad_id, head.vocab.sot_id, head.vocab.unk_id]
    logits[..., banned] = float('-inf')
    log_probs = logits.log_softmax(-1)
    targets = head.vocab.to_compact(tokens[:, 1:])
    picked = log_probs.gather(-1, targets[..., None])[..., 0]
    return picked.masked_fill(tokens[:, 1:] == 0, 0).sum(-1)


def test_score_is_the_teacher_forced_log_probability(captioner, pair_files):
    before, after, _ = square_pair()
    captions = ['the red square turned blue', 'the blue square turned red',
                'there is no change']
    pairs = [pair_files, (before, after), pair_files]
    scored = captioner.score(pairs, captions)
    expected = _by_hand(captioner, pairs, captions)
    assert np.allclose([s['sum_logprob'] for s in scored], expected.numpy(),
                       atol=1e-4)
    assert scored[0]['pair_id'] == 0 and scored[0]['img1'] == pair_files[0]
    assert scored[1]['num_tokens'] == 6  # five words and the end
    assert scored[1]['mean_logprob'] == pytest.approx(scored[1]['sum_logprob'] / 6)
    # An empty caption (greedy decoding ends at once) is the end's
    # log-probability alone.
    (empty, ) = captioner.score([pair_files], [''])
    assert empty['num_tokens'] == 1
    assert empty['sum_logprob'] == pytest.approx(
        float(_by_hand(captioner, [pair_files], [''])[0]), abs=1e-4)
    with pytest.raises(ValueError, match='one caption per pair'):
        captioner.score(pairs, captions[:2])
    with pytest.raises(ValueError, match='at most 12'):
        captioner.score([pair_files], [' '.join(['red'] * 20)])


def test_score_captions_of_an_idc_pcl_captioner():
    """IDC-PCL's decoder is scored through the same search protocol: the
    cached teacher-forced pass equals recomputing each prefix."""
    import torch

    from mmidc.registry import MODELS
    from mmidc.text import clip_tokenizer
    from tests.helpers.tiny_idc_pcl import CAPTIONS, tiny_batch, tiny_model_cfg
    torch.manual_seed(0)
    model = MODELS.build(tiny_model_cfg()).eval()
    data = model.data_preprocessor(tiny_batch(), False)
    tokens = clip_tokenizer()(CAPTIONS, 16)
    scores = model.score_captions(data['inputs'], tokens)  # [B, 15]
    decoder = model.caption_decoder
    memory, _ = model.decoder_inputs(data['inputs'])
    compact = decoder.vocab.to_compact(tokens)
    with torch.no_grad():
        prefix, context, _ = decoder.start_decoding(memory, 1, False)
        for t in range(1, 6):
            log_probs = decoder._log_probs(decoder.next_logits(
                compact[:, :t], context, None), compact[:, :t])
            expected = log_probs.gather(1, compact[:, t:t + 1])[:, 0]
            expected = expected.masked_fill(tokens[:, t] == 0, 0)
            assert torch.allclose(scores[:, t - 1], expected, atol=1e-5)
    assert torch.all(scores[tokens[:, 1:] == 0] == 0)
    assert torch.all(scores[tokens[:, 1:] != 0] < 0)


def test_call_stream_and_the_cli_share_preprocess_forward_postprocess(
        captioner, captioner_files, pair_files, tmp_path):
    """One path: what a subclass's ``preprocess`` / ``forward`` /
    ``postprocess`` do shows in one pair's result, a list's, ``stream``'s,
    caption_pair.py's JSONL, ``score``'s and the attention maps'; a bad pair
    is an error for that pair only."""
    import json

    from mmidc.apis.pair_sources import PairRecord
    from mmidc.cli.caption_pair import caption_many
    calls = []

    class Marked(IDCInferencer):

        def preprocess(self, *args, **kwargs):
            calls.append('preprocess')
            return super().preprocess(*args, **kwargs)

        def forward(self, *args, **kwargs):
            calls.append('forward')
            return super().forward(*args, **kwargs)

        def postprocess(self, preds, visualization=None,
                        return_datasamples=False):
            calls.append('postprocess')
            return [dict(r, caption=f"<{r['caption']}>") if 'caption' in r
                    else r for r in super().postprocess(preds)]

    marked = Marked(*captioner_files, device='cpu')
    plain = captioner(*pair_files)['caption']
    assert marked(*pair_files)['caption'] == f'<{plain}>'
    assert calls == ['preprocess', 'forward', 'postprocess']
    pairs = [pair_files] * 3
    assert [r['caption'] for r in marked(pairs, batch_size=2, workers=0)] \
        == [f'<{plain}>'] * 3
    streamed = list(marked.stream(pairs, 2, workers=0))
    assert [[r['caption'] for r in batch] for batch in streamed] == \
        [[f'<{plain}>'] * 2, [f'<{plain}>']]
    records = [PairRecord('a', *pair_files),
               PairRecord('b', pair_files[0], str(tmp_path / 'missing.png'))]
    out = tmp_path / 'results.jsonl'
    assert caption_many(marked, records, out, 2, workers=0) == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0] == dict(pair_id='a', img1=pair_files[0], img2=pair_files[1],
                            caption=f'<{plain}>', score=lines[0]['score'])
    assert 'missing.png' in lines[1]['error'] and 'caption' not in lines[1]
    assert calls.count('preprocess') == 4 and calls.count('postprocess') == 6
    with pytest.raises(ValueError, match='unknown argument'):
        marked(pairs, beam=3)  # a typo is named, not ignored
    del calls[:]
    scored = marked.score(pairs[:2], ['the red square', 'there is no change'])
    maps = marked.attention_maps(*pair_files)
    assert calls == ['preprocess', 'forward', 'postprocess'] * 2
    assert maps['images'].shape == (2, 32, 32, 3) and set(maps) == {
        'images', 'intra', 'inter', 'inter_per_query'}
    bad = (pair_files[0], str(tmp_path / 'missing.png'))
    (streamed, ) = marked.stream([bad, pair_files], 2, workers=0,
                                 captions=['a cube', 'the red square'])
    assert 'missing.png' in str(streamed[0]['error'])
    assert streamed[1]['sum_logprob'] == scored[0]['sum_logprob']
    (mapped, ) = marked.stream([pair_files, bad], 2, workers=0, attention=True)
    assert np.array_equal(mapped[0]['inter'], maps['inter']) and 'error' in mapped[1]
    with pytest.raises(ValueError, match='captions: one per pair, got 1'):
        list(marked.stream(pairs, 2, workers=0, captions=['a cube']))
    with pytest.raises(ValueError, match='a list of strings'):
        marked.stream(pairs, captions='a cube')  # checked before any batch

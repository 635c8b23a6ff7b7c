"""The one checkpoint reader: safetensors or torch.load(weights_only=True)."""
import pytest
import torch
from safetensors.torch import save_file

from mmidc.utils import read_checkpoint


def _state():
    return {'backbone.proj': torch.arange(6.).reshape(2, 3),
            'head.vocab.clip_ids': torch.tensor([0, -1, 49406, 49407])}


def test_reads_safetensors_plain_and_mmengine_files(tmp_path):
    state = _state()
    save_file(state, str(tmp_path / 'w.safetensors'))
    torch.save(state, tmp_path / 'plain.pth')
    # MMEngine's runner: meta + state_dict (+ optimizer...), DDP prefixes
    torch.save({'meta': {'epoch': 3}, 'optimizer': {'state': {}},
                'state_dict': {f'module.{k}': v for k, v in state.items()}},
               tmp_path / 'runner.pth')
    for name, meta in (('w.safetensors', {}), ('plain.pth', {}),
                       ('runner.pth', {'epoch': 3})):
        got, got_meta = read_checkpoint(tmp_path / name)
        assert got_meta == meta
        assert sorted(got) == sorted(state)
        assert all(torch.equal(got[k], state[k]) for k in state)


class _Payload:
    def __reduce__(self):
        return (print, ('executed while loading',))


def test_refuses_pickled_code_and_non_state_dicts(tmp_path, capsys):
    torch.save({'state_dict': _state(), 'payload': _Payload()},
               tmp_path / 'evil.pth')
    with pytest.raises(ValueError, match=r'evil\.pth.*weights_only=True'):
        read_checkpoint(tmp_path / 'evil.pth')
    assert 'executed' not in capsys.readouterr().out
    torch.save({'epoch': 3, 'weights': _state()}, tmp_path / 'nested.pth')
    with pytest.raises(ValueError, match="nested.pth.*keys \\['epoch'"):
        read_checkpoint(tmp_path / 'nested.pth')
    torch.save([torch.ones(1)], tmp_path / 'list.pth')
    with pytest.raises(ValueError, match='holds a list'):
        read_checkpoint(tmp_path / 'list.pth')
    with pytest.raises(FileNotFoundError, match='absent.pth'):
        read_checkpoint(tmp_path / 'absent.pth')


def test_refuses_torchscript_archives_naming_the_converter(tmp_path):
    torch.jit.save(torch.jit.script(torch.nn.Linear(2, 2)),
                   str(tmp_path / 'ViT-B-32.pt'))
    with pytest.raises(ValueError, match='TorchScript.*openai_clip_to_'
                       'safetensors.py'):
        read_checkpoint(tmp_path / 'ViT-B-32.pt')


def test_the_last_checkpoint_pointer_is_named_as_such(tmp_path):
    """``tools/test.py CONFIG work_dir/last_checkpoint`` (or ``--resume``
    with it): the error names the checkpoint the pointer holds."""
    from mmidc.utils.checkpoint_io import load_checkpoint_file, read_checkpoint
    pointer = tmp_path / 'last_checkpoint'
    target = str(tmp_path / 'epoch_3.pth')
    pointer.write_text(target)
    for read in (read_checkpoint, load_checkpoint_file):
        with pytest.raises(ValueError) as err:
            read(str(pointer))
        message = str(err.value)
        assert 'last_checkpoint' in message and target in message
        assert 'pass that file' in message
        assert 'weights_only' not in message  # not torch's advice


def test_a_folder_is_named_as_a_folder(tmp_path):
    """A work dir given as the checkpoint (``caption_pair.py CONFIG
    WORK_DIR ...``, ``IDCInferencer(config, work_dir)``): the error says it
    is a folder and names the checkpoints in it, not "not found"."""
    torch.save(_state(), tmp_path / 'epoch_1.pth')
    save_file(_state(), str(tmp_path / 'model.safetensors'))
    (tmp_path / 'notes.txt').write_text('')
    with pytest.raises(FileNotFoundError) as err:
        read_checkpoint(str(tmp_path))
    message = str(err.value)
    assert 'is a folder, not a checkpoint' in message
    assert 'epoch_1.pth' in message and 'model.safetensors' in message
    assert 'notes.txt' not in message and 'not found' not in message

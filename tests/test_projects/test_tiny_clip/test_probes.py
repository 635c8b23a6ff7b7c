"""Zero-shot accuracy on hand-made features and a hand-made model."""
import numpy as np
import pytest
import torch

from projects.tiny_clip.probes import (ATTRIBUTE_PROMPTS,
                                       attribute_linear_probe,
                                       attribute_zero_shot,
                                       finetune_probe_accuracy,
                                       linear_probe_accuracy, to_model_input,
                                       zero_shot_accuracy)


def test_accuracy_by_cosine_not_dot_product():
    classes = torch.tensor([[1., 0.], [0., 1.]])
    # image 0 is nearer class 0 by angle though its dot product with the
    # (long) class-1 row would win without normalising; image 2 is wrong
    images = torch.tensor([[1., 0.2], [0.1, 3.], [2., 1.9]])
    long_classes = classes * torch.tensor([[1.], [10.]])
    labels = torch.tensor([0, 1, 1])
    assert zero_shot_accuracy(images, long_classes, labels) == \
        pytest.approx(2 / 3)
    assert zero_shot_accuracy(images, classes, torch.tensor([0, 1, 0])) == 1


def test_bad_shapes_are_named():
    with pytest.raises(ValueError, match='labels must be'):
        zero_shot_accuracy(torch.ones(3, 2), torch.ones(2, 2),
                           torch.zeros(2, dtype=torch.long))
    with pytest.raises(ValueError, match=r'\[N, D\] and \[C, D\]'):
        zero_shot_accuracy(torch.ones(3, 2), torch.ones(2, 3),
                           torch.zeros(3, dtype=torch.long))


class OracleColourModel(torch.nn.Module):
    """Images carry a colour index in pixel [0, 0, 0]; prompts map to one-hot
    rows by their colour word; every other attribute reads 'red'-ish."""
    colours = list(ATTRIBUTE_PROMPTS['color'])

    def encode_image(self, images):
        index = images[:, 0, 0, 0].long()
        return torch.nn.functional.one_hot(index, 8).float()

    def encode_text(self, tokens):
        return tokens

    def tokenize(self, texts):
        rows = []
        for text in texts:
            words = text.split()
            hit = [i for i, c in enumerate(self.colours) if c in words]
            rows.append(torch.nn.functional.one_hot(
                torch.tensor(hit[0] if hit else 0), 8).float())
        return torch.stack(rows)


def test_attribute_zero_shot_with_an_oracle_for_colour():
    model = OracleColourModel()
    colours = model.colours
    records = [dict(color=colours[i % 8], material='rubber', shape='cube',
                    size='large' if i % 2 else 'small') for i in range(16)]
    images = torch.zeros(16, 3, 2, 2)
    images[:, 0, 0, 0] = torch.arange(16) % 8
    results = attribute_zero_shot(model, model.tokenize, images, records)
    assert results['color'] == dict(accuracy=1.0, chance=1 / 8, num=16)
    # no colour in the other prompts: every image predicts the first value
    assert results['material']['accuracy'] == 1.0  # 'rubber' comes first
    assert results['size']['accuracy'] == 0.5
    assert results['shape']['accuracy'] == 1.0  # 'cube' comes first
    records[3]['shape'] = 'torus'
    with pytest.raises(KeyError, match="'shape': image 3 has value 'torus'"):
        attribute_zero_shot(model, model.tokenize, images, records)
    with pytest.raises(ValueError, match='16 images but 15'):
        attribute_zero_shot(model, model.tokenize, images, records[:15])


def test_to_model_input():
    images = np.full((2, 4, 6, 3), 255, np.uint8)
    x = to_model_input(images, (0.5, 0.5, 0.5), (0.25, 0.5, 1.0))
    assert x.shape == (2, 3, 4, 6)
    assert torch.allclose(x[0, :, 0, 0], torch.tensor([2., 1., 0.5]))


def test_linear_probe_reads_a_linear_code_and_not_noise():
    g = torch.Generator().manual_seed(0)
    labels = torch.randint(0, 3, (300, ), generator=g)
    # class k shifts feature k; the other 13 features are noise
    feats = torch.randn(300, 16, generator=g)
    feats[torch.arange(300), labels] += 4
    assert linear_probe_accuracy(feats[:200], labels[:200], feats[200:],
                                 labels[200:], 3) >= 0.95
    # labels unrelated to the features: about chance on held-out ones
    noise = torch.randint(0, 3, (300, ), generator=g)
    assert linear_probe_accuracy(feats[:200], noise[:200], feats[200:],
                                 noise[200:], 3) < 0.5


def test_linear_probe_bad_shapes_are_named():
    with pytest.raises(ValueError, match='train features must be'):
        linear_probe_accuracy(torch.ones(3, 2), torch.zeros(2).long(),
                              torch.ones(3, 2), torch.zeros(3).long(), 2)
    with pytest.raises(ValueError, match='differ in width: 2 vs 3'):
        linear_probe_accuracy(torch.ones(3, 2), torch.zeros(3).long(),
                              torch.ones(3, 3), torch.zeros(3).long(), 2)


class ColourCodeModel(torch.nn.Module):
    """Image embedding: a one-hot of the colour index in pixel [0, 0, 0],
    plus noise; nothing about the other attributes."""

    def encode_image(self, images):
        g = torch.Generator().manual_seed(int(images.shape[0]))
        code = torch.nn.functional.one_hot(images[:, 0, 0, 0].long(), 8)
        return code.float() + 0.1 * torch.randn(len(images), 8, generator=g)


def test_attribute_linear_probe_reads_what_the_embedding_holds():
    colours = list(ATTRIBUTE_PROMPTS['color'])
    g = torch.Generator().manual_seed(1)

    def data(n):
        colour = torch.randint(0, 8, (n, ), generator=g)
        shape = torch.randint(0, 3, (n, ), generator=g)
        shapes = list(ATTRIBUTE_PROMPTS['shape'])
        images = torch.zeros(n, 3, 2, 2)
        images[:, 0, 0, 0] = colour.float()
        records = [dict(color=colours[c], shape=shapes[s])
                   for c, s in zip(colour.tolist(), shape.tolist())]
        return images, records

    (train, train_rec), (test, test_rec) = data(240), data(120)
    attributes = {'color': colours, 'shape': list(ATTRIBUTE_PROMPTS['shape'])}
    results = attribute_linear_probe(ColourCodeModel(), train, train_rec,
                                     test, test_rec, attributes)
    assert results['color'] == dict(accuracy=1.0, chance=1 / 8,
                                    num_train=240, num=120)
    assert results['shape']['accuracy'] < 0.5  # chance 1/3
    test_rec[5]['shape'] = 'torus'
    with pytest.raises(KeyError, match="'shape': test image 5 has value "
                       "'torus'"):
        attribute_linear_probe(ColourCodeModel(), train, train_rec, test,
                               test_rec, attributes)
    with pytest.raises(ValueError, match='240 train images but 239'):
        attribute_linear_probe(ColourCodeModel(), train, train_rec[:239],
                               test, test_rec, attributes)


def test_finetune_probe_learns_a_pixel_code_and_leaves_the_tower_alone():
    g = torch.Generator().manual_seed(2)

    def data(n):
        labels = torch.randint(0, 3, (n, ), generator=g)
        images = torch.randn(n, 3, 4, 4, generator=g)
        images[torch.arange(n), 0, 0, labels] += 6  # class k: pixel k bright
        return images, labels

    (train, train_y), (test, test_y) = data(300), data(100)
    tower = torch.nn.Sequential(torch.nn.Flatten(), torch.nn.Linear(48, 8))
    before = {k: v.clone() for k, v in tower.state_dict().items()}
    per_epoch = finetune_probe_accuracy(tower, train, train_y, test, test_y,
                                        3, epochs=4, lr=1e-2)
    assert len(per_epoch) == 4 and per_epoch[-1] >= 0.9
    assert all(torch.equal(before[k], v)
               for k, v in tower.state_dict().items())
    # same seed, same run; labels that the pixels do not hold: near chance
    assert finetune_probe_accuracy(tower, train, train_y, test, test_y, 3,
                                   epochs=4, lr=1e-2) == per_epoch
    noise = torch.randint(0, 3, (300, ), generator=g)
    assert finetune_probe_accuracy(tower, train, noise, test, test_y, 3,
                                   epochs=4, lr=1e-2)[-1] < 0.6
    with pytest.raises(ValueError, match='test images must be'):
        finetune_probe_accuracy(tower, train, train_y, test[0], test_y, 3)
    with pytest.raises(ValueError, match='epochs must be >= 1, got 0'):
        finetune_probe_accuracy(tower, train, train_y, test, test_y, 3,
                                epochs=0)

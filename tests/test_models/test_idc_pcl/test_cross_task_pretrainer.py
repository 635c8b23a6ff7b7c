"""IDCPCLCrossTaskPretrainer: the NABirds task on classification pairs, the
pair tasks on caption pairs, and clear errors for batches of both."""
import pytest
import torch
from mmengine.optim import OptimWrapper
from mmpretrain.structures import DataSample

from mmidc.registry import MODELS
from tests.helpers.tiny_idc_pcl import IMAGE_SIZE, tiny_batch, tiny_model_cfg


def build(**kwargs):
    return MODELS.build(tiny_model_cfg('IDCPCLCrossTaskPretrainer', num_classes=3,
                                       task_weights=dict(mlm=1), **kwargs))


def nabirds_batch(labels=((0, 0), (1, 2), (2, 2), (0, 1))):
    g = torch.Generator().manual_seed(0)
    inputs, samples = [], []
    for k, (c1, c2) in enumerate(labels):
        inputs.append(torch.randint(0, 256, (2, 3, *IMAGE_SIZE), generator=g,
                                    dtype=torch.uint8))
        samples.append(DataSample(metainfo=dict(
            pair_id=str(k), class_labels=[c1, c2], same_class=int(c1 == c2))))
    return dict(inputs=inputs, data_samples=samples)


def snapshot(model):
    return {n: p.detach().clone() for n, p in model.named_parameters()}


def changed(model, before):
    return {n.split('.')[0] for n, p in model.named_parameters()
            if not torch.equal(p.detach(), before[n])}


def test_nabirds_batch_trains_its_heads_and_the_difference_encoder():
    torch.manual_seed(0)
    model = build()
    optim = OptimWrapper(torch.optim.SGD(model.parameters(), lr=0.1))
    before = snapshot(model)
    losses = model.train_step(nabirds_batch(), optim)
    assert {'loss_cls', 'loss_match', 'loss_contrast', 'cls_accuracy',
            'match_accuracy'} <= set(losses)
    assert changed(model, before) == {'feature_encoder', 'token_embedding',
                                      'single_image_encoder', 'pair_encoder',
                                      'classifier', 'matcher'}
    # a caption batch trains the drawn pair task, not the NABirds heads
    before = snapshot(model)
    losses = model.train_step(tiny_batch(), optim)
    assert 'loss_mlm' in losses
    after = changed(model, before)
    assert 'cross_modal' in after and not after & {'classifier', 'matcher'}


def test_losses_match_hand_computation():
    torch.manual_seed(0)
    model = build().eval()
    data = model.data_preprocessor(nabirds_batch(), False)
    out = model.loss(data['inputs'], data['data_samples'])
    single = model.single_image_encoder(model.token_embedding(
        model.extract_feat(data['inputs'])))
    pair = model.pair_encoder(single)
    labels = torch.tensor([0, 0, 1, 2, 2, 2, 0, 1])
    logits = model.classifier(single[:, :, 0].flatten(0, 1))
    assert out['loss_cls'].item() == pytest.approx(
        torch.nn.functional.cross_entropy(logits, labels).item(), rel=1e-5)
    match = model.matcher(torch.cat([pair[:, 0, 0], pair[:, 1, 0]], -1))
    assert out['loss_match'].item() == pytest.approx(
        torch.nn.functional.cross_entropy(match, torch.tensor([1, 0, 1, 0])).item(),
        rel=1e-5)


def test_bad_batches_and_settings():
    model = build()
    mixed = nabirds_batch()
    caption = tiny_batch()
    mixed['inputs'][0] = caption['inputs'][0]
    mixed['data_samples'][0] = caption['data_samples'][0]
    data = model.data_preprocessor(mixed, True)
    with pytest.raises(ValueError, match='TaskRatioSampler'):
        model.loss(data['inputs'], data['data_samples'])
    data = model.data_preprocessor(nabirds_batch(((0, 5), (1, 1))), True)
    with pytest.raises(ValueError, match=r'class_labels must be \[c1, c2\] in \[0, 3\)'):
        model.loss(data['inputs'], data['data_samples'])
    with pytest.raises(ValueError, match='single_image_encoder'):
        build(single_image_encoder=None, pair_encoder=None)

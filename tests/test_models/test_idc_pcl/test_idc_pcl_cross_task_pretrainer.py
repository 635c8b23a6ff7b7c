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
                                      'cls_head', 'match_head'}
    # a caption batch trains the drawn pair task, not the NABirds heads
    before = snapshot(model)
    losses = model.train_step(tiny_batch(), optim)
    assert 'loss_mlm' in losses
    after = changed(model, before)
    assert 'cross_modal' in after and not after & {'cls_head', 'match_head'}


def test_losses_match_hand_computation():
    torch.manual_seed(0)
    model = build().eval()
    data = model.data_preprocessor(nabirds_batch(), False)
    out = model.loss(data['inputs'], data['data_samples'])
    single = model.single_image_encoder(model.token_embedding(
        model.extract_feat(data['inputs'])))
    pair = model.pair_encoder(single)
    labels = torch.tensor([0, 0, 1, 2, 2, 2, 0, 1])
    logits = model.cls_head((single[:, :, 0].flatten(0, 1), ))
    assert out['loss_cls'].item() == pytest.approx(
        torch.nn.functional.cross_entropy(logits, labels).item(), rel=1e-5)
    match = model.match_head((torch.cat([pair[:, 0, 0], pair[:, 1, 0]], -1), ))
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
    with pytest.raises(TypeError, match="unexpected keyword argument 'fda_layout'"):
        build(fda_layout='split')


def test_heads_are_registered_parts_the_config_composes():
    model = build(cls_head=dict(type='mmpretrain.LinearClsHead',
                                loss=dict(type='mmpretrain.LabelSmoothLoss',
                                          label_smooth_val=0.1)))
    assert type(model.cls_head).__name__ == 'LinearClsHead'
    assert model.cls_head.fc.out_features == 3
    assert model.match_head.fc.in_features == 2 * model.hidden
    data = model.data_preprocessor(nabirds_batch(), True)
    out = model.loss(data['inputs'], data['data_samples'])
    plain = build()
    plain.load_state_dict(model.state_dict())
    plain_out = plain.loss(data['inputs'], data['data_samples'])
    # the same weights, another loss: label smoothing changes loss_cls only
    assert out['loss_cls'].item() != pytest.approx(plain_out['loss_cls'].item())
    assert out['loss_match'].item() == pytest.approx(plain_out['loss_match'].item())
    with pytest.raises(ValueError, match='num_classes is set by'):
        build(match_head=dict(type='mmpretrain.LinearClsHead', num_classes=3))


def test_checkpoints_with_linear_heads_still_load():
    model = build()
    old = {k.replace('cls_head.fc.', 'classifier.').replace('match_head.fc.', 'matcher.'): v
           for k, v in model.state_dict().items()}
    assert 'classifier.weight' in old and 'matcher.bias' in old
    fresh = build()
    fresh.load_state_dict(old)  # strict
    assert torch.equal(fresh.cls_head.fc.weight, model.cls_head.fc.weight)
    assert torch.equal(fresh.match_head.fc.bias, model.match_head.fc.bias)

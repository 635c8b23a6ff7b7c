"""A peer for the step's MFU: open_clip's own CLIP training step.

What open_clip's training script does per step with ``--precision amp_bf16``
(``open_clip_train/train.py``): forward of both towers under bf16 autocast,
its ``ClipLoss``, backward, AdamW step (no loss scaler for bf16). Random
weights and inputs: speed does not depend on the values.
"""
from typing import Dict

import torch

from .measure import count_flops, load_average, time_call


def clip_train_step_time(arch: str = 'ViT-B-32', batch_size: int = 256,
                         device: str = 'cuda', dtype: str = 'bf16',
                         steps: int = 10) -> Dict:
    """Seconds per step, images/s and counted FLOPs of open_clip's CLIP step
    at ``batch_size`` image-text pairs."""
    import open_clip
    from open_clip.loss import ClipLoss

    model = open_clip.create_model(arch, pretrained=None).to(device).train()
    loss_fn = ClipLoss()
    optimizer = torch.optim.AdamW(model.parameters(), lr=5e-4, weight_decay=0.2)
    size = model.visual.image_size
    size = size if isinstance(size, (tuple, list)) else (size, size)
    images = torch.randn(batch_size, 3, *size, device=device)
    texts = torch.randint(1, 49407, (batch_size, model.context_length),
                          device=device)
    cast = dict(bf16=torch.bfloat16, fp16=torch.float16).get(dtype)

    def step():
        optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=torch.device(device).type, dtype=cast,
                            enabled=cast is not None):
            image_features, text_features, logit_scale = model(images, texts)
            loss = loss_fn(image_features, text_features, logit_scale)
        loss.backward()
        optimizer.step()
        with torch.no_grad():  # open_clip clamps the temperature every step
            model.logit_scale.clamp_(0, 4.6052)

    flops = count_flops(step)['total']
    timing = time_call(step, steps=steps, warmup=2, device=device)
    del model, optimizer
    return dict(arch=f'open_clip {arch}', stage='CLIP training step',
                dtype=dtype, batch=batch_size, batch_unit='images',
                step_s=round(timing['wall_s'], 4),
                pairs_per_s=round(batch_size / timing['wall_s'], 1),
                gflop_per_step=round(flops / 1e9, 1),
                achieved_gflops=round(flops / timing['wall_s'] / 1e9, 1),
                load=load_average())

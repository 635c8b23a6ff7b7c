# IDC-PCL's captioner on the published trunk (idc_pcl-pretrainer_resnet101.py):
# seq2seq fine-tuning (15% of the caption masked) with the distractor judge,
# greedy decoding up to 40 tokens.
_base_ = ['./idc_pcl-pretrainer_resnet101.py']
model = dict(
    _delete_=True,
    type='IDCPCLCaptioner',
    **_base_.trunk,
    mask_prob=0.15,
    distractor_loss=dict(type='DistractorJudgingLoss'),
    decode_cfg=dict(strategy='greedy'),
    init_from=None)
model_wrapper_cfg = None

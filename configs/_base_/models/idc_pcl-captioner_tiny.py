# IDC-PCL's captioner on the tiny trunk of idc_pcl-pretrainer_tiny.py:
# UniLM-style seq2seq fine-tuning (masked-token prediction under the
# sequence-to-sequence mask) with the distractor judge, greedy decoding.
_base_ = ['./idc_pcl-pretrainer_tiny.py']
model = dict(
    _delete_=True,
    type='IDCPCLCaptioner',
    **_base_.tiny_trunk,
    mask_prob=0.15,
    distractor_loss=dict(type='DistractorJudgingLoss'),
    decode_cfg=dict(strategy='greedy'),
    init_from=None)

# The quickstart's captioner trained twice as long: 10 epochs instead of 5,
# about 12 more minutes on the 2-core machine (over the quickstart's 20-minute
# budget). Measured before the aligned difference and the word prior (the
# 5-epoch config now meets the quickstart's target): over four runs CIDEr
# 104.58 against 96.91 over five runs of the 5-epoch config of then; colour
# changes 57.80 (34.83), material 36.91 (24.01) (docs/from_scratch.md). Not
# re-measured with the current options. Run it with
#   bash tools/quickstart.sh --caption-config <this file> \
#       --work-dir work_dirs/quickstart_10e
_base_ = ['./clip4idc-caption_tiny_synthetic-clevr-change.py']

max_epochs = 10
# the base schedule's warm-up and cosine, the cosine stretched to max_epochs
param_scheduler = _base_.param_scheduler
param_scheduler[1]['end'] = max_epochs
train_cfg = dict(max_epochs=max_epochs, val_interval=max_epochs)

# CLIP4IDC stage 1 on LEVIR-MCI, CLIP ViT-B/32: LEVIR-MCI holds LEVIR-CC's
# image pairs and captions (plus change masks), so this is
# clip4idc-adapt_vit-b32_levir-cc.py on LEVIR-MCI's folder: the same run.
# With the LEVIR-CC adaptation already run, skip this one and give the
# captioning config adapt_work_dir='work_dirs/clip4idc-adapt_vit-b32_levir-cc'.
_base_ = ['./clip4idc-adapt_vit-b32_levir-cc.py']
data_root = 'data/levir_mci'
train_dataloader = dict(
    dataset=dict(type='LEVIRMCIDataset', data_root='{data_root}'))
val_dataloader = dict(
    dataset=dict(type='LEVIRMCIDataset', data_root='{data_root}'))
test_dataloader = val_dataloader  # merged with the base's test split

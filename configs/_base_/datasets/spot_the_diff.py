# Spot-the-Diff (Jhamtani & Berg-Kirkpatrick 2018): annotations/{split}.json + resized_images/.
# One pair per img_id, its references the sentences of all its records (one record
# per annotator), "" kept on val/test as the official references keep it. Every
# sentence is a separate reference; train draws one per visit (single-sentence
# protocol); docs/datasets.md.
_base_ = ['./image_pair.py']
data_root = 'data/spot_the_diff'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root='{data_root}',
    split='train', pipeline=_base_.train_pipeline))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root='{data_root}',
    split='val', pipeline=_base_.test_pipeline))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root='{data_root}',
    split='test', pipeline=_base_.test_pipeline))

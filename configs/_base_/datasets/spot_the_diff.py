# Spot-the-Diff (Jhamtani & Berg-Kirkpatrick 2018): annotations/{split}.json + resized_images/.
# Every sentence of a pair is a separate reference (single-sentence protocol).
_base_ = ['./image_pair.py']
data_root = 'data/spot_the_diff'
vocab_file = data_root + '/caption_vocab_train.json'

train_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root=data_root, split='train',
    pipeline={{_base_.train_pipeline}}))
val_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root=data_root, split='val',
    pipeline={{_base_.test_pipeline}}))
test_dataloader = dict(dataset=dict(
    _delete_=True, type='SpotTheDiffDataset', data_root=data_root, split='test',
    pipeline={{_base_.test_pipeline}}))

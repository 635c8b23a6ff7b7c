# mmidc's runtime, with the recipe's components (projects/from_scratch/models)
# imported after mmidc: every config of the recipe is based on it.
_base_ = ['../../../../configs/_base_/default_runtime.py']
custom_imports = dict(imports=['mmidc', 'projects.from_scratch'],
                      allow_failed_imports=False)

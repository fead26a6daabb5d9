"""tfgpu explain: read a TensorFlow/Keras/CUDA log and name causes and fixes.

Layer rule: explain imports model, knowledge and system; never doctor, configure or cli.
"""

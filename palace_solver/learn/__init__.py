"""The learned evaluation: its features in numpy (``features``), self-play data on the batch
layer (``selfplay``), the network and its trainer (``model``, ``train``)."""

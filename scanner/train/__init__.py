"""Training and evaluating the networks (PyTorch, the ``train`` extra); never imported at run time."""

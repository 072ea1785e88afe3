"""Training the network card player ("net") on a teacher's decisions: the training data (``data``,
``dokosim train data``), the weight format and a numpy reference of the forward pass
(``network``, numpy only) and the fitting with JAX and optax (``fit``, ``dokosim train fit``,
the optional extra ``dokosim[train]``). See docs/strategies.md."""

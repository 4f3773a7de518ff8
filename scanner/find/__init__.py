"""Finding cards: by their outline (classical, ``detect``) and by the learned finder (``segment``)."""

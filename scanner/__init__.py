"""The scanner: camera frames to the cards on the table, one subpackage a stage.

- ``capture``: the camera and the other frame sources
- ``geometry``: the play mat, calibration zones, card crops, the camera's field of view
- ``find``: cards found by their outline (``detect``) and by the learned finder (``segment``)
- ``read``: the shipped classifier, and a deck's profile learned at enrolment
- ``scan``: the stages together (``Scanner``, ``load_scanner``); ``track``: still moments over frames
- ``piles``: won piles scored; ``synth``: synthetic tables and decks; ``train``: the networks' training
  and evaluation (PyTorch; never imported at run time)
- ``core``: what all share (``MODELS_DIR``, ``ScannerError``); ``labels``, ``metrics``

Heavy parts (OpenCV, onnxruntime, torch) are imported by the modules that need them, so
`tweak replay` never pays for them."""

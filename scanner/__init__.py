"""The scanner: camera frames to the cards on the table (detection, classification, tracking,
synthetic rendering). Heavy parts (OpenCV, onnxruntime, torch) are imported by the modules that
need them, so `tweak replay` never pays for them."""

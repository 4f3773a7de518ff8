"""Capture: the camera and the other frame sources (a folder, a video, the virtual table)."""

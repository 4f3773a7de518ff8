"""Geometry: the play mat and its markers, calibration zones, card crops, the camera's field of view."""

"""Reading cards: the shipped classifier, and a deck's profile learned at enrolment (``adapt``, ``profile``)."""

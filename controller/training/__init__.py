"""Dealer training and audition (issue 27): drills on the real round controller, courses,
the training journal, scores and reports."""

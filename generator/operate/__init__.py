"""The operate task kind: plans over action spaces, graded by simulation."""

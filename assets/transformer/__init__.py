"""The power transformer asset class."""

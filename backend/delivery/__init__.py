"""Delivery of the page: the runtime's files, their compressed copies, the Python bundle."""

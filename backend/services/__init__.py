"""Domain services: plain functions with keyword-only arguments over a SQLAlchemy Session."""

"""The book's small helper library: code that more than one chapter uses lives
here once.
"""

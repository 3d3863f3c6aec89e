"""One module per exercise, named after its notebook: hidden checks and the misconception catalogue."""

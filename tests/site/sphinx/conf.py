# Sphinx configuration for a folder written by optrace, used by
# tests/check_site.c (sphinx-build -W -c tests/site/sphinx OUT SITE): only
# MyST-Parser, the Markdown reader of PyTorch's own docs, and Sphinx's
# default theme. optrace's index.md holds the toctree that takes in every
# page (a hidden, globbed one), so nothing else is needed.
project = "optrace pages"
extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}

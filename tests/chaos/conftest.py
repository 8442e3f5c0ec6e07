"""Chaos kit tests: pytester runs an adopter's test file with the plugin in process."""

pytest_plugins = ["pytester"]

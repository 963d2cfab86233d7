"""A package: tests inside are imported as pkg_with_init.<module>."""

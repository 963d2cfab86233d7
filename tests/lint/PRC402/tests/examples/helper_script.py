import pytest  # Error
